import { useState } from "preact/hooks";
import { api, type ProjectView } from "../api";
import { useI18n } from "../i18n";
import { routeHash } from "../route";
import { ImportBook } from "./import-book";

/** The projects of the workspace, most recently active first, and a form to create one. */
export function Bookshelf({ projects, reload }: { projects: ProjectView[]; reload: () => Promise<void> }) {
  const { t, lang } = useI18n();
  const [name, setName] = useState("");
  const [title, setTitle] = useState("");
  const [language, setLanguage] = useState<string>(lang);
  const [sample, setSample] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const sorted = [...projects].sort((a, b) => (b.lastActivity ?? "").localeCompare(a.lastActivity ?? ""));
  const when = (iso: string | null | undefined) =>
    iso
      ? // A month name, never 01/12/2026 (day or month first?).
        new Date(iso).toLocaleString(lang === "zh" ? "zh-CN" : "en-GB", {
          dateStyle: "medium",
          timeStyle: "short",
        })
      : t("shelf.never");

  const create = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const r = await api.createProject({
        name: name.trim(),
        title: title.trim() || undefined,
        language,
        sample,
      });
      await reload();
      location.hash = routeHash(r.project.name, "files");
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="page">
      <h1>{t("shelf.title")}</h1>
      {sorted.length === 0 ? (
        <p class="muted">{t("shelf.empty")}</p>
      ) : (
        <ul class="shelf" data-testid="projects">
          {sorted.map((p) => (
            <li key={p.name} class="book card">
              <a href={routeHash(p.name, "files")} class="book-title" data-testid={`project-${p.name}`}>
                {p.title || p.name}
              </a>
              <div class="muted small">{p.name}</div>
              {p.summary && <p class="book-summary">{p.summary}</p>}
              <dl class="meta">
                <dt>{t("shelf.language")}</dt>
                <dd>{p.language}</dd>
                <dt>{t("shelf.lastActivity")}</dt>
                <dd>{when(p.lastActivity)}</dd>
              </dl>
            </li>
          ))}
        </ul>
      )}
      <form class="card create" onSubmit={create} data-testid="create-project">
        <h2>{t("shelf.new")}</h2>
        <label>
          {t("shelf.name")}
          <input
            value={name}
            required
            pattern="[A-Za-z0-9][A-Za-z0-9._\-]*"
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
            data-testid="new-name"
          />
        </label>
        <label>
          {t("shelf.projectTitle")}
          <input value={title} onInput={(e) => setTitle((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          {t("shelf.language")}
          <select value={language} onChange={(e) => setLanguage((e.target as HTMLSelectElement).value)}>
            <option value="en">English</option>
            <option value="zh">中文</option>
          </select>
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={sample}
            onChange={(e) => setSample((e.target as HTMLInputElement).checked)}
            data-testid="new-sample"
          />
          {t("shelf.sample")}
        </label>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy || !name.trim()} data-testid="new-submit">
          {t("shelf.create")}
        </button>
      </form>
      <ImportBook projects={projects} reload={reload} />
    </div>
  );
}
