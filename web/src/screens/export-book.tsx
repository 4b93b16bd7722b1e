// "Export the book": the compiled book (the server's `nbook export`) in a chosen format and chapter
// range, downloaded by the browser; the compiler's errors (no chapters, a range past the end) and
// warnings (a plot chapter with no file, a file outside the plot) shown.
import { useState } from "preact/hooks";
import { api } from "../api";
import { useI18n } from "../i18n";

const FORMATS = [
  { value: "epub", label: "EPUB" },
  { value: "docx", label: "DOCX (Word)" },
  { value: "pdf", label: "PDF" },
  { value: "html", label: "HTML" },
  { value: "md", label: "Markdown" },
] as const;

/** `A..B` from the two number fields; empty ends are open. */
function rangeOf(from: string, to: string): string | undefined {
  const a = from.trim();
  const b = to.trim();
  if (!a && !b) return undefined;
  return a === b ? a : `${a}..${b}`;
}

function save(blob: Blob, fileName: string): void {
  const href = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = href;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  // The browser has taken the file once the click is handled.
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
}

export function ExportBook({ project }: { project: string }) {
  const { t } = useI18n();
  const [format, setFormat] = useState<string>("epub");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [warnings, setWarnings] = useState<{ shown: string[]; count: number } | null>(null);
  const run = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setWarnings(null);
    setStatus(t("export.working"));
    try {
      const file = await api.exportBook(project, format, rangeOf(from, to));
      save(file.blob, file.fileName);
      setStatus(t("export.done", { file: file.fileName }));
      if (file.warningCount > 0) setWarnings({ shown: file.warnings, count: file.warningCount });
    } catch (err) {
      setStatus(null);
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="export-book" onSubmit={run} aria-labelledby="export-title" data-testid="export-book">
      <h3 id="export-title" class="side-title">
        {t("export.title")}
      </h3>
      <label>
        {t("export.format")}{" "}
        <select
          value={format}
          onChange={(e) => setFormat((e.target as HTMLSelectElement).value)}
          data-testid="export-format"
        >
          {FORMATS.map((f) => (
            <option key={f.value} value={f.value}>
              {f.label}
            </option>
          ))}
        </select>
      </label>
      <div class="row" title={t("export.rangeHint")}>
        <label>
          {t("export.from")}{" "}
          <input
            type="number"
            min={1}
            value={from}
            onInput={(e) => setFrom((e.target as HTMLInputElement).value)}
            data-testid="export-from"
          />
        </label>
        <label>
          {t("export.to")}{" "}
          <input
            type="number"
            min={1}
            value={to}
            onInput={(e) => setTo((e.target as HTMLInputElement).value)}
            data-testid="export-to"
          />
        </label>
      </div>
      <button type="submit" disabled={busy} data-testid="export-download">
        {t("export.download")}
      </button>
      <p class="muted small" role="status" data-testid="export-status">
        {status}
      </p>
      {warnings && (
        <div class="small" data-testid="export-warnings">
          <p>{t("export.warnings", { n: String(warnings.count) })}</p>
          <ul>
            {warnings.shown.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
          {warnings.count > warnings.shown.length && (
            <p class="muted">
              {t("export.moreWarnings", { n: String(warnings.count - warnings.shown.length) })}
            </p>
          )}
        </div>
      )}
      {error && (
        <p class="error small" role="alert" data-testid="export-error">
          {error}
        </p>
      )}
    </form>
  );
}
