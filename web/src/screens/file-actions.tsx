// Rename, move and delete the open file or a folder it is in, each confirmed in a dialog and made
// as one history change on the server; the change can be taken back at once (Undo) or from History.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, type FileNode } from "../api";
import { filesIn, findNode, retitle, targetsOf } from "../file-tree";
import { useI18n } from "../i18n";
import { routeHash } from "../route";

type Kind = "rename" | "move" | "delete";

interface Props {
  project: string;
  /** The open file. */
  path: string;
  tree: FileNode | undefined;
  /** Files with unsaved text: moving or deleting them would lose it. */
  unsaved: Set<string>;
}

/** A chapter's file: the target itself, or the `index.md` of a chapter folder. */
function chapterFile(tree: FileNode | undefined, target: string): FileNode | null {
  if (!tree || !target.startsWith("manuscript/")) return null;
  const node = findNode(tree, target);
  if (node?.kind === "file") return /\.md$/i.test(node.name) ? node : null;
  const index = node?.children?.find((c) => c.name === "index.md");
  return index?.kind === "file" ? index : null;
}

const parentOf = (p: string) => p.split("/").slice(0, -1).join("/");
const inside = (p: string, target: string) => p === target || p.startsWith(`${target}/`);

export function FileActions({ project, path, tree, unsaved }: Props) {
  const { t } = useI18n();
  // The file and the folders it is in, but not a top folder (lorebook/, manuscript/): the screen is built on them.
  const targets = targetsOf(path).filter((p, i) => i === 0 || p.includes("/"));
  // A chapter's index.md is acted on as its chapter folder; any other file as itself.
  const initial = /^manuscript\/[^/]+\/index\.md$/.test(path) ? targets[1]! : path;
  const [target, setTarget] = useState(initial);
  useEffect(() => setTarget(initial), [path]);
  const [kind, setKind] = useState<Kind | null>(null);
  const [value, setValue] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<{ summary: string; change: string | null } | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);

  const chapter = chapterFile(tree, target);
  const node = tree ? findNode(tree, target) : null;
  const open = (k: Kind) => {
    setKind(k);
    setError(null);
    const name = target.split("/").at(-1) ?? target;
    setValue(k === "rename" ? (chapter ? (chapter.title ?? "") : name) : target);
    dialog.current?.showModal();
  };
  const close = () => {
    dialog.current?.close();
    setKind(null);
  };

  const act = async (): Promise<{ summary: string; change: string | null }> => {
    const v = value.trim();
    if (kind === "delete") return api.deleteFile(project, target);
    if (kind === "rename" && chapter) {
      // A chapter is renamed by its title: the heading the tree and the export show.
      const f = await api.readFile(project, chapter.path);
      await api.writeFile(project, chapter.path, retitle(f.text, v), f.version);
      return { summary: t("files.retitled", { title: v }), change: null };
    }
    const to = kind === "rename" ? [parentOf(target), v].filter(Boolean).join("/") : v;
    const r = await api.moveFile(project, target, to);
    if (inside(path, target)) location.hash = routeHash(project, "files", to + path.slice(target.length));
    return r;
  };

  const confirm = async (e: Event) => {
    e.preventDefault();
    if ((kind === "move" || kind === "delete") && [...unsaved].some((p) => inside(p, target))) {
      setError(t("files.saveFirst"));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const wasDelete = kind === "delete";
      const r = await act();
      close();
      setDone(r);
      if (wasDelete && inside(path, target)) location.hash = routeHash(project, "files", "");
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const undo = async () => {
    if (!done?.change) return;
    setError(null);
    try {
      await api.revert(project, [done.change]);
      setDone({ summary: t("files.undone"), change: null });
    } catch (err) {
      setError((err as Error).message);
    }
  };

  const count = node ? filesIn(node) : 0;
  return (
    <div class="file-actions row" data-testid="file-actions">
      <label class="small">
        {t("files.actOn")}{" "}
        <select
          value={target}
          onChange={(e) => setTarget((e.target as HTMLSelectElement).value)}
          data-testid="act-on"
        >
          {targets.map((p) => (
            <option key={p} value={p}>
              {p === path ? p : `${p}/`}
            </option>
          ))}
        </select>
      </label>
      <button type="button" class="small" onClick={() => open("rename")} data-testid="rename">
        {t("files.rename")}
      </button>
      <button type="button" class="small" onClick={() => open("move")} data-testid="move">
        {t("files.move")}
      </button>
      <button type="button" class="small danger" onClick={() => open("delete")} data-testid="delete">
        {t("files.delete")}
      </button>
      {done && (
        <p class="small" role="status" data-testid="action-done">
          {done.summary}{" "}
          {done.change && (
            <button type="button" class="small" onClick={undo} data-testid="undo-action">
              {t("files.undo")}
            </button>
          )}
        </p>
      )}
      {error && !kind && (
        <p class="error small" role="alert">
          {error}
        </p>
      )}
      <dialog
        ref={dialog}
        aria-labelledby="file-action-title"
        onClose={() => setKind(null)}
        data-testid="file-dialog"
      >
        {kind && (
          <form onSubmit={confirm}>
            <h3 id="file-action-title">
              {kind === "delete"
                ? t("files.deleteTitle", { path: target })
                : kind === "move"
                  ? t("files.moveTitle", { path: target })
                  : t(chapter ? "files.retitleTitle" : "files.renameTitle", { path: target })}
            </h3>
            {kind === "delete" ? (
              <p>{t("files.deleteHelp", { n: count })}</p>
            ) : (
              <label>
                {kind === "move"
                  ? t("files.newPlace")
                  : chapter
                    ? t("files.chapterTitle")
                    : t("files.newName")}
                <input
                  value={value}
                  onInput={(e) => setValue((e.target as HTMLInputElement).value)}
                  required
                  data-testid="action-value"
                />
              </label>
            )}
            {error && (
              <p class="error small" role="alert">
                {error}
              </p>
            )}
            <div class="row">
              <button
                type="submit"
                class={kind === "delete" ? "danger" : "primary"}
                disabled={busy}
                data-testid="confirm-action"
              >
                {t(kind === "delete" ? "files.delete" : kind === "move" ? "files.move" : "files.rename")}
              </button>
              <button type="button" onClick={close}>
                {t("files.cancel")}
              </button>
            </div>
          </form>
        )}
      </dialog>
    </div>
  );
}
