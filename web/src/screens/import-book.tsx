import { useEffect, useState } from "preact/hooks";
import { api, type ImportPlan, type ProjectView } from "../api";
import { useI18n } from "../i18n";
import { routeHash } from "../route";
import { subscribe } from "../sse";

/** A file's bytes as base64 (what the upload route takes). */
function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ""));
    reader.onerror = () => reject(reader.error ?? new Error("the file could not be read"));
    reader.readAsDataURL(file);
  });
}

/**
 * "Import a manuscript" on the bookshelf: upload a file, see the import plan (chapters, titles,
 * word counts, warnings), choose a new project or one to append to, then create — with progress
 * from the server's import_progress events while it writes.
 */
export function ImportBook({ projects, reload }: { projects: ProjectView[]; reload: () => Promise<void> }) {
  const { t } = useI18n();
  const [importId, setImportId] = useState<string | null>(null);
  const [plan, setPlan] = useState<ImportPlan | null>(null);
  const [name, setName] = useState("");
  const [into, setInto] = useState("");
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!importId) return;
    return subscribe("/api/events", (e) => {
      if (e.type === "import_progress" && e.importId === importId && e.stage === "write") {
        setProgress({ done: Number(e.done), total: Number(e.total) });
      }
    });
  }, [importId]);

  const run = async (step: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await step();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const upload = (e: Event) => {
    const input = e.target as HTMLInputElement;
    const file = input.files?.[0];
    if (!file) return;
    void run(async () => {
      if (importId) await api.dropImport(importId).catch(() => {});
      setPlan(null);
      setImportId(null);
      const r = await api.uploadImport({ filename: file.name, data: await readBase64(file) });
      setImportId(r.importId);
      setPlan(r.plan);
      setName(r.plan.project);
      setInto("");
    });
  };

  const choices = () => (into ? { into } : { project: name.trim() });

  const replan = (target: string) => {
    setInto(target);
    if (!importId) return;
    void run(async () => {
      const r = await api.planImport(
        importId,
        target ? { into: target } : { project: name.trim() || undefined },
      );
      setPlan(r.plan);
    });
  };

  const create = (e: Event) => {
    e.preventDefault();
    if (!importId) return;
    void run(async () => {
      setProgress(null);
      const r = await api.createImport(importId, choices());
      setImportId(null);
      setPlan(null);
      await reload();
      location.hash = routeHash(r.project.name, "files");
    });
  };

  const discard = () => {
    if (!importId) return;
    void run(async () => {
      await api.dropImport(importId);
      setImportId(null);
      setPlan(null);
    });
  };

  return (
    <form class="card import" onSubmit={create} data-testid="import-book">
      <h2>{t("import.title")}</h2>
      <p class="muted small">{t("import.hint")}</p>
      <label>
        {t("import.file")}
        <input
          type="file"
          accept=".docx,.epub,.md,.markdown,.txt,.text"
          onChange={upload}
          disabled={busy}
          data-testid="import-file"
        />
      </label>
      {plan && (
        <div data-testid="import-plan">
          <p>
            {t("import.summary", {
              title: plan.title,
              chapters: plan.chapters.length,
              words: plan.words,
              format: plan.format,
            })}
            {plan.author ? ` · ${plan.author}` : ""}
          </p>
          {plan.frontMatter && (
            <p class="muted small">
              {t("import.front", { file: plan.frontMatter.file, words: plan.frontMatter.words })}
            </p>
          )}
          {plan.warnings.length > 0 && (
            <ul class="warnings" data-testid="import-warnings">
              {plan.warnings.map((w) => (
                <li key={`${w.code}:${w.message}`} class="warning">
                  {w.message}
                </li>
              ))}
            </ul>
          )}
          <table class="state" data-testid="import-chapters">
            <thead>
              <tr>
                <th>#</th>
                <th>{t("import.chapter")}</th>
                <th>{t("import.folder")}</th>
                <th>{t("import.words")}</th>
              </tr>
            </thead>
            <tbody>
              {plan.chapters.map((c) => (
                <tr key={c.folder}>
                  <td>{c.index}</td>
                  <td>{c.title}</td>
                  <td>{c.folder}</td>
                  <td>{c.words}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <label>
            {t("import.target")}
            <select
              value={into}
              onChange={(e) => replan((e.target as HTMLSelectElement).value)}
              data-testid="import-into"
            >
              <option value="">{t("import.newProject")}</option>
              {projects.map((p) => (
                <option key={p.name} value={p.name}>
                  {t("import.appendTo", { title: p.title || p.name })}
                </option>
              ))}
            </select>
          </label>
          {!into && (
            <label>
              {t("shelf.name")}
              <input
                value={name}
                required
                pattern="[A-Za-z0-9][A-Za-z0-9._\-]*"
                onInput={(e) => setName((e.target as HTMLInputElement).value)}
                data-testid="import-name"
              />
            </label>
          )}
          {busy && progress && (
            <progress max={progress.total} value={progress.done} data-testid="import-progress">
              {progress.done}/{progress.total}
            </progress>
          )}
          <div class="row">
            <button
              type="submit"
              class="primary"
              disabled={busy || (!into && !name.trim())}
              data-testid="import-create"
            >
              {into ? t("import.append") : t("import.create")}
            </button>
            <button type="button" onClick={discard} disabled={busy}>
              {t("common.cancel")}
            </button>
          </div>
        </div>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
