import type { ComponentChild } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { readChapter } from "../../../src/markdown/chapter.js";
import {
  ApiError,
  api,
  type FileNode,
  type FileText,
  type SearchResult,
  type WriteConflictDetails,
} from "../api";
import { TwoWayDiff } from "../diff-view";
import { applyChange, type ChangedNode, graft, titleFromSlug } from "../file-tree";
import { useI18n } from "../i18n";
import { renderMarkdown } from "../markdown";
import { routeHash } from "../route";
import { subscribe } from "../sse";
import { useAsync } from "../use-async";
import { ExportBook } from "./export-book";
import { FileActions } from "./file-actions";
import { FileHistory } from "./file-history";
import { isChapter, TreeView } from "./file-tree-view";
import { InlineAi, type Selection } from "./inline-ai";
import { type EditorHandle, ProseEditor, useWritingFocus } from "./prose-editor";

/** The search box: lines of the manuscript, lorebook and plan; a hit opens its file at the line. */
function SearchPanel({ project, onOpen }: { project: string; onOpen: (path: string, line: number) => void }) {
  const { t } = useI18n();
  const [query, setQuery] = useState("");
  const [area, setArea] = useState<"" | "manuscript" | "lorebook" | "plan">("");
  const [result, setResult] = useState<SearchResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      setResult(await api.search(project, query.trim(), area || undefined));
    } catch (err) {
      setResult(null);
      setError((err as Error).message);
    }
  };
  return (
    <search class="search">
      <form class="row" onSubmit={run}>
        <input
          type="search"
          value={query}
          placeholder={t("files.search")}
          aria-label={t("files.search")}
          title={t("files.searchHint")}
          onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
          data-testid="search-input"
        />
        <select
          value={area}
          aria-label={t("files.searchIn")}
          onChange={(e) => setArea((e.target as HTMLSelectElement).value as typeof area)}
        >
          <option value="">{t("files.searchAll")}</option>
          <option value="manuscript">manuscript/</option>
          <option value="lorebook">lorebook/</option>
          <option value="plan">.agent/plan/</option>
        </select>
        <button type="submit" disabled={!query.trim()}>
          {t("files.searchGo")}
        </button>
      </form>
      {error && (
        <p class="error small" role="alert">
          {error}
        </p>
      )}
      {result && (
        <div data-testid="search-results">
          <p class="muted small" role="status">
            {result.hits.length
              ? t(result.more ? "files.searchMore" : "files.searchFound", { n: result.hits.length })
              : t("files.searchNone")}
          </p>
          <ul class="tree">
            {result.hits.map((h) => (
              <li key={`${h.path}:${h.line}`}>
                <a
                  href={routeHash(project, "files", h.path)}
                  class="leaf hit"
                  onClick={() => onOpen(h.path, h.line)}
                  data-testid="search-hit"
                >
                  <span class="small muted">
                    {h.path}:{h.line}
                  </span>
                  <Snippet text={h.snippet} highlights={h.highlights} />
                </a>
              </li>
            ))}
          </ul>
        </div>
      )}
    </search>
  );
}

/** A snippet with its matches marked (text nodes only: nothing in it is taken as markup). */
function Snippet({ text, highlights }: { text: string; highlights: [number, number][] }) {
  const parts: ComponentChild[] = [];
  let at = 0;
  for (const [a, b] of highlights) {
    parts.push(text.slice(at, a), <mark key={a}>{text.slice(a, b)}</mark>);
    at = b;
  }
  parts.push(text.slice(at));
  return <span class="snippet">{parts}</span>;
}

/**
 * Create a file (e.g. `manuscript/03-the-bell-road/index.md`); a Markdown file starts with a title
 * made from its name ("The Bell Road"), which is not counted as its words.
 */
function NewFile({ project, onCreated }: { project: string; onCreated: () => void }) {
  const { t } = useI18n();
  const [path, setPath] = useState("");
  const [error, setError] = useState<string | null>(null);
  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const p = path.trim().replace(/^\/+/, "");
    const name = p.split("/").filter(Boolean);
    const title = titleFromSlug((name.at(-1) === "index.md" ? name.at(-2) : name.at(-1)) ?? "");
    try {
      // baseVersion null: create only; a file that exists already is a conflict, never overwritten.
      await api.writeFile(project, p, p.endsWith(".md") ? `# ${title}\n` : "", null);
      setPath("");
      onCreated();
      location.hash = routeHash(project, "files", p);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <form class="new-file" onSubmit={create}>
      <input
        value={path}
        placeholder={t("files.newPath")}
        aria-label={t("files.newPath")}
        title={t("files.newPathHint")}
        onInput={(e) => setPath((e.target as HTMLInputElement).value)}
        data-testid="new-file"
      />
      <button type="submit" disabled={!path.trim()}>
        {t("files.create")}
      </button>
      {error && (
        <p class="error small" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

/** Unsaved text, kept per project and file for the life of the page (across files and screens). */
interface Draft {
  text: string;
  saved: string;
  version: string | null;
}
const drafts = new Map<string, Draft>();
const draftKey = (project: string, path: string) => `${project}\n${path}`;

/** The project's files with unsaved text: the kept drafts, and the open file (if loaded) as it is now. */
function unsavedPaths(project: string, open: string, openDirty: boolean): Set<string> {
  const prefix = `${project}\n`;
  const paths = new Set<string>();
  for (const [key, d] of drafts)
    if (key.startsWith(prefix) && d.text !== d.saved) paths.add(key.slice(prefix.length));
  if (!open) return paths;
  if (openDirty) paths.add(open);
  else paths.delete(open);
  return paths;
}

// Closing or reloading the tab with unsaved text asks first.
window.addEventListener("beforeunload", (e) => {
  if ([...drafts.values()].some((d) => d.text !== d.saved)) e.preventDefault();
});

/** The lorebook/manuscript tree and a Markdown editor with preview, word count and safe saving. */
export function FilesScreen({ project, path }: { project: string; path: string }) {
  const { t } = useI18n();
  const tree = useAsync(() => api.tree(project), [project]);
  // The tree as shown: the server's answer, with change events and opened lazy folders put in.
  const [shownTree, setShownTree] = useState<{ tree: FileNode; truncated: boolean } | null>(null);
  useEffect(() => setShownTree(tree.data ?? null), [tree.data]);
  const loadFolder = async (folder: string) => {
    const sub = await api.tree(project, folder);
    setShownTree((r) => r && { ...r, tree: graft(r.tree, folder, sub.tree) });
  };
  // A search hit to show: its file is selected at its line once the editor holds that file.
  const jump = useRef<{ path: string; line: number } | null>(null);
  const [jumpTick, setJumpTick] = useState(0);
  const editor = useRef<EditorHandle | null>(null);
  const [focus, setFocus] = useState(false);
  const [selection, setSelection] = useState<Selection>({ from: 0, to: 0, text: "" });
  useWritingFocus(focus, () => setFocus(false));
  const [words, setWords] = useState(new Map<string, number>());
  const [text, setText] = useState("");
  const [version, setVersion] = useState<string | null>(null);
  const [saved, setSaved] = useState("");
  const [mode, setMode] = useState<"edit" | "preview">("edit");
  const [status, setStatus] = useState<string | null>(null);
  const [conflict, setConflict] = useState<WriteConflictDetails | null>(null);
  const [error, setError] = useState<string | null>(null);
  const dirty = text !== saved;
  const state = useRef({ path, dirty, version });
  state.current = { path, dirty, version };
  // The file whose text the editor holds; its draft is kept while the text differs from the disk.
  const holding = useRef<string>("");
  // The same, as state: the editor is shown once it holds the open file (a ref alone re-renders nothing).
  const [held, setHeld] = useState("");
  const hold = (p: string) => {
    holding.current = p;
    setHeld(p);
  };
  useEffect(() => {
    if (!holding.current) return;
    const key = draftKey(project, holding.current);
    if (dirty) drafts.set(key, { text, saved, version });
    else drafts.delete(key);
  }, [text, saved, version]);

  const show = (f: FileText) => {
    setText(f.text);
    editor.current?.setText(f.text);
    setSaved(f.text);
    setVersion(f.version);
    setConflict(null);
  };
  const load = async (p: string) => show(await api.readFile(project, p));

  useEffect(() => {
    setStatus(null);
    setError(null);
    setSelection({ from: 0, to: 0, text: "" });
    hold("");
    if (!path) return;
    const draft = drafts.get(draftKey(project, path));
    if (draft) {
      hold(path);
      setText(draft.text);
      setSaved(draft.saved);
      setVersion(draft.version);
      setConflict(null);
      return;
    }
    // A file opened after this one wins, whichever answer arrives last.
    let live = true;
    api.readFile(project, path).then(
      (f) => {
        if (!live) return;
        show(f);
        hold(path);
      },
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [project, path]);

  // The open file as it is on disk now: shown if this tab has no unsaved typing (else the typing
  // is kept and the user told). This tab's own saves are recognised by their version.
  const recheckOpen = async () => {
    const open = state.current.path;
    if (!open || state.current.version === null) return;
    const f = await api.readFile(project, open);
    if (f.version === state.current.version || open !== state.current.path) return;
    if (state.current.dirty) setStatus(t("files.changedOutsideDirty"));
    else {
      show(f);
      setStatus(t("files.changedOutside"));
    }
  };

  // Files changed by agents or saved in another tab: refresh the tree (and its word counts) and
  // the open file. When the stream (re)connects, whatever changed while it was down is checked too.
  useEffect(
    () =>
      subscribe(
        "/api/events",
        async (e) => {
          if (e.type === "reset") {
            tree.reload();
            return recheckOpen();
          }
          if (e.type !== "files_changed" || e.project !== project) return;
          const paths = (e.paths as string[]) ?? [];
          setWords((w) => {
            const next = new Map(w);
            for (const p of paths) next.delete(p);
            return next;
          });
          // The event carries each changed file's node: put in place, the tree is not fetched again.
          const nodes = e.nodes as ChangedNode[] | undefined;
          if (nodes) setShownTree((r) => r && { ...r, tree: nodes.reduce(applyChange, r.tree) });
          else tree.reload();
          if (paths.includes(state.current.path)) await recheckOpen();
        },
        (connected) => {
          if (connected) recheckOpen().catch(() => {});
        },
      ),
    [project],
  );

  const save = async (overwrite = false, body = text) => {
    setError(null);
    try {
      const r = await api.writeFile(project, path, body, overwrite && conflict ? conflict.version : version);
      setVersion(r.version);
      setSaved(body);
      setConflict(null);
      setStatus(t("files.saved"));
      if (isChapter(path)) setWords((w) => new Map(w).set(path, readChapter(body).words));
    } catch (e) {
      if (e instanceof ApiError && e.code === "conflict")
        setConflict((e.body as { error: { details: WriteConflictDetails } }).error.details);
      else setError((e as Error).message);
    }
  };

  useEffect(() => {
    const j = jump.current;
    const el = editor.current;
    if (!j || j.path !== path || !el || holding.current !== path) return;
    jump.current = null;
    el.selectLine(j.line);
  }, [text, path, jumpTick, mode]);
  const openHit = (hitPath: string, line: number) => {
    jump.current = { path: hitPath, line };
    setMode("edit");
    setJumpTick((k) => k + 1);
  };

  // An accepted inline alternative replaces the passage it was asked for (if it is still there) and
  // is saved at once, through the same route as any save.
  const acceptInline = async (asked: Selection, replacement: string) => {
    const h = editor.current;
    if (!h || text.slice(asked.from, asked.to) !== asked.text) return t("inline.moved");
    h.replace(asked.from, asked.to, replacement);
    await save(false, text.slice(0, asked.from) + replacement + text.slice(asked.to));
    return null;
  };

  const root = shownTree?.tree;
  // The same reading of a chapter as the tree's: its leading heading, and the words of the rest.
  const { words: n, title } = readChapter(text);

  return (
    <div class="split">
      <aside class="side" aria-label={t("files.tree")}>
        <h2 class="side-title">{t("files.tree")}</h2>
        <ExportBook project={project} />
        <SearchPanel project={project} onOpen={openHit} />
        <NewFile project={project} onCreated={tree.reload} />
        {path && (
          <FileActions
            project={project}
            path={path}
            tree={root}
            unsaved={unsavedPaths(project, holding.current === path ? path : "", dirty)}
          />
        )}
        {shownTree?.truncated && (
          <p class="muted small" role="note" data-testid="tree-truncated">
            {t("files.truncated")}
          </p>
        )}
        {root ? (
          <TreeView
            nodes={root.children ?? []}
            selected={path}
            words={words}
            unsaved={unsavedPaths(project, holding.current === path ? path : "", dirty)}
            project={project}
            load={loadFolder}
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
              {title && (
                <strong class="chapter-title" data-testid="chapter-title">
                  {title}
                </strong>
              )}
              <span class={title ? "path muted small" : "path"} data-testid="open-path">
                {path}
              </span>
              <span class="muted small" data-testid="word-count">
                {n.toLocaleString()} {t("files.words")}
              </span>
              <span class="muted small status" role="status" data-testid="save-status">
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
                aria-pressed={focus}
                onClick={() => setFocus(!focus)}
                title={t("editor.focusHint")}
                data-testid="focus-mode"
              >
                {t("editor.focus")}
              </button>
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
                <TwoWayDiff theirs={conflict.theirs} mine={text} />
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
            {mode === "edit" && held === path && (
              <InlineAi
                key={path}
                project={project}
                path={path}
                selection={selection}
                onAccept={acceptInline}
              />
            )}
            {mode === "edit" && held !== path ? (
              !error && <p class="muted">{t("common.loading")}</p>
            ) : mode === "edit" ? (
              <ProseEditor
                key={path}
                initial={text}
                onChange={setText}
                onSelect={setSelection}
                onSave={() => save()}
                label={path}
                handle={editor}
              />
            ) : (
              <article
                class="prose"
                data-testid="rendered"
                dangerouslySetInnerHTML={{ __html: renderMarkdown(text) }}
              />
            )}
            <FileHistory key={path} project={project} path={path} />
          </>
        )}
      </section>
    </div>
  );
}
