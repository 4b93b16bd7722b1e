// A file's recorded changes and its blame, folded under the editor: read only when opened, since a
// blame runs git over the file's whole history.
import { useState } from "preact/hooks";
import { api, type Blame, type Change } from "../api";
import { useI18n } from "../i18n";
import { routeHash } from "../route";
import { useWho } from "../who";

/** How many of the file's changes are listed (newest first). */
const LIMIT = 50;

function Loaded({ project, changes, blame }: { project: string; changes: Change[]; blame: Blame }) {
  const { t, lang } = useI18n();
  const who = useWho();
  return (
    <>
      {changes.length === 0 ? (
        <p class="muted small">{t("changes.fileNone")}</p>
      ) : (
        <ul class="tree" data-testid="file-changes">
          {changes.map((c) => (
            <li key={c.id}>
              <a href={routeHash(project, "changes", c.id)} class="file" data-id={c.id}>
                <span class="grow">{c.summary}</span>
                <span class="count">
                  {who(c)} · {new Date(c.time).toLocaleString(lang === "zh" ? "zh-CN" : "en-GB")}
                </span>
              </a>
            </li>
          ))}
        </ul>
      )}
      <p class="muted small" data-testid="blame-words">
        {t("changes.words", {
          user: blame.words.user,
          agents: blame.words.agents,
          outside: blame.words.outside,
          import: blame.words.import,
        })}
      </p>
      <table class="blame" data-testid="blame">
        <tbody>
          {blame.lines.map((l) => (
            <tr key={l.line} data-actor={l.author.actor}>
              <td class="blame-who">{who(l.author)}</td>
              <td class="blame-no">{l.line}</td>
              <td class="blame-text">{l.text}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/** The open file's history and blame, loaded each time the fold is opened. */
export function FileHistory({ project, path }: { project: string; path: string }) {
  const { t } = useI18n();
  const [data, setData] = useState<{ changes: Change[]; blame: Blame } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = async () => {
    setError(null);
    try {
      const [list, blame] = await Promise.all([
        api.changes(project, { path, limit: LIMIT }),
        api.blame(project, path),
      ]);
      setData({ changes: list.changes, blame });
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <details
      class="file-history"
      data-testid="file-history"
      onToggle={(e) => {
        if ((e.currentTarget as HTMLDetailsElement).open) void load();
      }}
    >
      <summary>{t("changes.fileHistory")}</summary>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {data ? (
        <Loaded project={project} changes={data.changes} blame={data.blame} />
      ) : (
        !error && <p class="muted small">{t("common.loading")}</p>
      )}
    </details>
  );
}
