import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, api, type ConflictBody, type TreeEntry } from "../api";
import { routeHash } from "../app";
import { TwoWayDiff } from "../diff-view";
import { useI18n } from "../i18n";
import { countWords, renderMarkdown } from "../markdown";
import { subscribe } from "../sse";
import { useAsync } from "../use-async";

interface Folder {
  name: string;
  path: string;
  folders: Folder[];
  files: TreeEntry[];
}

function buildTree(entries: TreeEntry[]): Folder {
  const root: Folder = { name: "", path: "", folders: [], files: [] };
  const folderAt = (path: string): Folder => {
    let node = root;
    for (const part of path.split("/").filter(Boolean)) {
      let next = node.folders.find((f) => f.name === part);
      if (!next) {
        next = { name: part, path: node.path ? `${node.path}/${part}` : part, folders: [], files: [] };
        node.folders.push(next);
      }
      node = next;
    }
    return node;
  };
  for (const e of entries) {
    if (e.type === "dir") folderAt(e.path);
    else folderAt(e.path.split("/").slice(0, -1).join("/")).files.push(e);
  }
  return root;
}

/** The chapters of the manuscript: its Markdown files, whose word counts the tree shows. */
function chapterFiles(entries: TreeEntry[]): string[] {
  return entries.filter((e) => e.type === "file" && /^manuscript\/.+\.md$/.test(e.path)).map((e) => e.path);
}

/** Lorebook and manuscript first (where a novelist works), the rest after, each alphabetically. */
function folderOrder(a: Folder, b: Folder): number {
  const rank = (f: Folder) => (f.path === "lorebook" ? 0 : f.path === "manuscript" ? 1 : 2);
  return rank(a) - rank(b) || a.name.localeCompare(b.name);
}

function TreeView({
  folder,
  open,
  selected,
  words,
  project,
}: {
  folder: Folder;
  open: Set<string>;
  selected: string;
  words: Map<string, number>;
  project: string;
}) {
  const { t } = useI18n();
  return (
    <ul class="tree">
      {[...folder.folders].sort(folderOrder).map((f) => (
        <li key={f.path}>
          <details open={open.has(f.path) || selected.startsWith(`${f.path}/`)}>
            <summary>{f.name}/</summary>
            <TreeView folder={f} open={open} selected={selected} words={words} project={project} />
          </details>
        </li>
      ))}
      {folder.files.map((f) => (
        <li key={f.path}>
          <a
            href={routeHash(project, "files", f.path)}
            class={`file${f.path === selected ? " selected" : ""}`}
            aria-current={f.path === selected ? "true" : undefined}
            data-path={f.path}
          >
            {f.path.split("/").pop()}
            {words.has(f.path) && (
              <span class="count" title={t("files.words")}>
                {words.get(f.path)!.toLocaleString()}
              </span>
            )}
          </a>
        </li>
      ))}
    </ul>
  );
}

/** The lorebook/manuscript tree and a Markdown editor with preview, word count and safe saving. */
export function FilesScreen({ project, path }: { project: string; path: string }) {
  const { t } = useI18n();
  const tree = useAsync(() => api.tree(project), [project]);
  const [words, setWords] = useState(new Map<string, number>());
  const [text, setText] = useState("");
  const [version, setVersion] = useState<string | null>(null);
  const [saved, setSaved] = useState("");
  const [mode, setMode] = useState<"edit" | "preview">("edit");
  const [status, setStatus] = useState<string | null>(null);
  const [conflict, setConflict] = useState<ConflictBody["current"] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const dirty = text !== saved;
  const state = useRef({ path, dirty });
  state.current = { path, dirty };

  // Word counts of every chapter, read once per tree load.
  useEffect(() => {
    const entries = tree.data?.entries;
    if (!entries) return;
    let live = true;
    Promise.all(
      chapterFiles(entries).map(
        async (p) => [p, countWords((await api.readFile(project, p)).content)] as const,
      ),
    ).then(
      (pairs) => live && setWords(new Map(pairs)),
      () => {},
    );
    return () => {
      live = false;
    };
  }, [tree.data, project]);

  const load = async (p: string) => {
    const f = await api.readFile(project, p);
    setText(f.content);
    setSaved(f.content);
    setVersion(f.version);
    setConflict(null);
    return f;
  };

  useEffect(() => {
    setStatus(null);
    setError(null);
    if (!path) return;
    load(path).catch((e: Error) => setError(e.message));
  }, [project, path]);

  // Files changed by agents: reload the open one if it has no unsaved typing, else say so.
  useEffect(
    () =>
      subscribe(`/api/projects/${encodeURIComponent(project)}/events`, (e) => {
        if (e.type !== "file_changed") return;
        const changed = String(e.path ?? "");
        if (/^manuscript\/.+\.md$/.test(changed))
          api
            .readFile(project, changed)
            .then((f) => setWords((w) => new Map(w).set(changed, countWords(f.content))));
        if (changed !== state.current.path) return tree.reload();
        if (state.current.dirty) setStatus(t("files.changedOutsideDirty"));
        else load(changed).then(() => setStatus(t("files.changedOutside")));
      }),
    [project],
  );

  const save = async (overwrite = false) => {
    setError(null);
    try {
      const r = await api.writeFile(project, path, text, overwrite && conflict ? conflict.version : version);
      setVersion(r.version);
      setSaved(text);
      setConflict(null);
      setStatus(t("files.saved"));
      if (/^manuscript\/.+\.md$/.test(path)) setWords((w) => new Map(w).set(path, countWords(text)));
    } catch (e) {
      if (e instanceof ApiError && e.status === 409) setConflict((e.body as ConflictBody).current);
      else setError((e as Error).message);
    }
  };

  const onKey = (e: KeyboardEvent) => {
    if ((e.ctrlKey || e.metaKey) && e.key === "s") {
      e.preventDefault();
      save();
    }
  };

  const root = tree.data ? buildTree(tree.data.entries) : null;
  const n = countWords(text);

  return (
    <div class="split">
      <aside class="side" aria-label={t("files.tree")}>
        <h2 class="side-title">{t("files.tree")}</h2>
        {root ? (
          <TreeView
            folder={root}
            open={new Set(["lorebook", "manuscript"])}
            selected={path}
            words={words}
            project={project}
          />
        ) : (
          <p class="muted">{tree.error?.message ?? t("common.loading")}</p>
        )}
      </aside>
      <section class="content editor" aria-label={path || t("files.pick")}>
        {!path ? (
          <p class="muted center">{t("files.pick")}</p>
        ) : (
          <>
            <div class="toolbar">
              <strong class="path" data-testid="open-path">
                {path}
              </strong>
              <span class="muted small" data-testid="word-count">
                {n.toLocaleString()} {t("files.words")}
              </span>
              <span class="grow" />
              <span class="muted small" role="status" data-testid="save-status">
                {dirty ? t("files.unsaved") : status}
              </span>
              <div class="tabs" role="tablist">
                <button
                  type="button"
                  role="tab"
                  aria-selected={mode === "edit"}
                  onClick={() => setMode("edit")}
                >
                  {t("files.edit")}
                </button>
                <button
                  type="button"
                  role="tab"
                  aria-selected={mode === "preview"}
                  onClick={() => setMode("preview")}
                  data-testid="preview-tab"
                >
                  {t("files.preview")}
                </button>
              </div>
              <button
                type="button"
                class="primary"
                onClick={() => save()}
                disabled={!dirty}
                data-testid="save"
                title="Ctrl+S"
              >
                {t("files.save")}
              </button>
            </div>
            {error && (
              <p class="error" role="alert">
                {error}
              </p>
            )}
            {conflict && (
              <div
                class="conflict card"
                role="alertdialog"
                aria-label={t("files.conflict")}
                data-testid="conflict"
              >
                <p>
                  <strong>{t("files.conflict")}</strong> {t("files.conflictHelp")}
                </p>
                <TwoWayDiff theirs={conflict.content} mine={text} />
                <div class="row">
                  <button type="button" class="danger" onClick={() => save(true)} data-testid="keep-mine">
                    {t("files.keepMine")}
                  </button>
                  <button type="button" onClick={() => load(path)} data-testid="take-theirs">
                    {t("files.takeTheirs")}
                  </button>
                </div>
              </div>
            )}
            {mode === "edit" ? (
              <textarea
                class="source"
                value={text}
                spellcheck={false}
                onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
                onKeyDown={onKey}
                aria-label={path}
                data-testid="editor"
              />
            ) : (
              <article
                class="prose"
                data-testid="rendered"
                dangerouslySetInnerHTML={{ __html: renderMarkdown(text) }}
              />
            )}
          </>
        )}
      </section>
    </div>
  );
}
