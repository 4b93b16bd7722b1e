// The files screen's tree: chapters by title with their word counts, folder totals (the manuscript's
// is the book's), lazy folders filled when opened, and a page of entries per folder at a time.
import { useEffect, useState } from "preact/hooks";
import type { FileNode } from "../api";
import { totalWords } from "../file-tree";
import { useI18n } from "../i18n";
import { routeHash } from "../route";

/**
 * Lorebook and manuscript first (where a novelist works), then the rest as the server ordered it.
 * Both start open, and so do the manuscript's chapter folders, so every chapter and its word count
 * is in view.
 */
function rank(n: FileNode): number {
  return n.path === "lorebook" ? 0 : n.path === "manuscript" ? 1 : 2;
}

export const isChapter = (path: string) => /^manuscript\/.+\.md$/.test(path);

/** Entries of one folder rendered at first; more are shown on request (the rest is said, not hidden). */
const PAGE = 200;

export interface TreeProps {
  selected: string;
  /** Counts the editor knows newer than the tree's (a file just saved). */
  words: Map<string, number>;
  unsaved: Set<string>;
  project: string;
  /** Fill a lazy folder (its entries were not in the tree's answer). */
  load: (path: string) => Promise<void>;
}

export function TreeView({ nodes, ...props }: TreeProps & { nodes: FileNode[] }) {
  const { t } = useI18n();
  const [shown, setShown] = useState(PAGE);
  const sorted = [...nodes].sort((a, b) => rank(a) - rank(b));
  const rest = sorted.length - shown;
  return (
    <ul class="tree">
      {sorted
        .slice(0, shown)
        .map((n) =>
          n.kind === "dir" ? (
            <Folder key={n.path} node={n} {...props} />
          ) : (
            <FileItem key={n.path} node={n} {...props} />
          ),
        )}
      {rest > 0 && (
        <li>
          <button
            type="button"
            class="more small"
            onClick={() => setShown((k) => k + PAGE)}
            data-testid="tree-more"
          >
            {t("files.showMore", { n: Math.min(rest, PAGE), rest })}
          </button>
        </li>
      )}
    </ul>
  );
}

/** A folder; its entries are rendered only while it is open, and a lazy one is filled when first opened. */
function Folder({ node, ...props }: TreeProps & { node: FileNode }) {
  const { t } = useI18n();
  const [open, setOpen] = useState(
    () => rank(node) < 2 || node.path.startsWith("manuscript/") || props.selected.startsWith(`${node.path}/`),
  );
  const [failed, setFailed] = useState<string | null>(null);
  // A file opened inside (a search hit, a file just moved here) opens the folders it is in.
  const holdsSelected = props.selected.startsWith(`${node.path}/`);
  useEffect(() => {
    if (holdsSelected) setOpen(true);
  }, [holdsSelected]);
  useEffect(() => {
    if (open && node.lazy) props.load(node.path).catch((e: Error) => setFailed(e.message));
  }, [open, node.lazy]);
  const inBook = node.path === "manuscript" || node.path.startsWith("manuscript/");
  const total = inBook ? totalWords(node) : null;
  return (
    <li>
      <details open={open} onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
        <summary data-folder={node.path}>
          {node.name}/
          {total && (
            <span
              class="count"
              title={t(total.partial ? "files.totalPartial" : "files.total")}
              data-testid={node.path === "manuscript" ? "manuscript-words" : "folder-words"}
            >
              {total.partial ? "≥ " : ""}
              {total.words.toLocaleString()}
            </span>
          )}
        </summary>
        {open &&
          (node.lazy ? (
            <p class="muted small" data-testid="tree-loading">
              {failed ?? t("common.loading")}
            </p>
          ) : (
            <TreeView nodes={node.children ?? []} {...props} />
          ))}
      </details>
    </li>
  );
}

/** A file, named by its title when it has one (a chapter's heading), its file name beside it. */
function FileItem({ node: n, selected, words, unsaved, project }: TreeProps & { node: FileNode }) {
  const { t } = useI18n();
  const count = words.get(n.path) ?? n.words;
  return (
    <li>
      <a
        href={routeHash(project, "files", n.path)}
        class={`file${n.path === selected ? " selected" : ""}`}
        aria-current={n.path === selected ? "true" : undefined}
        data-path={n.path}
      >
        {n.title ? (
          <span class="file-title" data-testid="file-title">
            {n.title} <span class="muted small">{n.name}</span>
          </span>
        ) : (
          n.name
        )}
        {unsaved.has(n.path) && (
          <span class="unsaved" title={t("files.unsaved")} data-testid="unsaved-mark">
            ●
          </span>
        )}
        {isChapter(n.path) && count !== undefined && (
          <span class="count" title={t("files.words")} data-testid="chapter-words">
            {count.toLocaleString()}
          </span>
        )}
      </a>
    </li>
  );
}
