// The files screen's tree as data: change events carry the changed files' nodes, which are put in
// place here (no refetch of the whole tree), and lazy folders are filled when they are opened.
// The import carries .js so that this module also loads under Node for the unit tests.

import type { FileNode } from "./api.js";

/** One changed file as a `files_changed` event carries it: its node now, or null when it is gone. */
export interface ChangedNode {
  path: string;
  node: FileNode | null;
}

const collator = new Intl.Collator();

/** Folders first, then by name, as the server lists them. */
function order(a: FileNode, b: FileNode): number {
  const ad = a.kind === "dir";
  const bd = b.kind === "dir";
  return ad !== bd ? (ad ? -1 : 1) : collator.compare(a.name, b.name);
}

/**
 * The tree with one file's node put at its path (replacing what was there; folders on the way made
 * when missing), or removed when `node` is null (with the folders that leaves empty). Folders along
 * the path are copied, the rest shared.
 * A change inside a folder not loaded yet (lazy) is left for when it is opened.
 */
export function applyChange(tree: FileNode, change: ChangedNode): FileNode {
  const segments = change.path.split("/");
  const put = (dir: FileNode, depth: number): FileNode => {
    if (dir.lazy || !dir.children) return dir;
    const name = segments[depth]!;
    const last = depth === segments.length - 1;
    const at = dir.children.findIndex((c) => c.name === name);
    const children = [...dir.children];
    if (last) {
      if (at >= 0) children.splice(at, 1);
      if (change.node) children.push(change.node);
    } else {
      const path = segments.slice(0, depth + 1).join("/");
      const existing = at >= 0 ? children[at]! : null;
      if (!existing && !change.node) return dir;
      const sub = existing?.kind === "dir" ? existing : { name, path, kind: "dir" as const, children: [] };
      if (at >= 0) children.splice(at, 1);
      const next = put(sub, depth + 1);
      // The server removes a folder a move or delete emptied: so does the tree (the top folders stay).
      if (depth === 0 || change.node || next.lazy || next.children?.length) children.push(next);
    }
    children.sort(order);
    return { ...dir, children };
  };
  return put(tree, 0);
}

/** The tree with the folder at `path` filled from its own answer (a lazy folder opened). */
export function graft(tree: FileNode, path: string, folder: FileNode): FileNode {
  if (tree.path === path) return { ...tree, lazy: undefined, children: folder.children ?? [] };
  if (!tree.children || !path.startsWith(tree.path === "." ? "" : `${tree.path}/`)) return tree;
  return { ...tree, children: tree.children.map((c) => (c.kind === "dir" ? graft(c, path, folder) : c)) };
}

const totals = new WeakMap<FileNode, { words: number; partial: boolean }>();

/**
 * The words of a folder's Markdown files, all levels down (`partial`: a folder in it is not loaded
 * yet). Kept per node object: a change copies only the folders on its path, so only they are summed again.
 */
export function totalWords(node: FileNode): { words: number; partial: boolean } {
  if (node.kind !== "dir") return { words: node.words ?? 0, partial: false };
  const known = totals.get(node);
  if (known) return known;
  const sum = { words: 0, partial: node.lazy === true };
  for (const c of node.children ?? []) {
    const t = totalWords(c);
    sum.words += t.words;
    sum.partial ||= t.partial;
  }
  totals.set(node, sum);
  return sum;
}

/** A chapter's title from its folder or file name: `03-the-bell-road` → "The Bell Road". */
export function titleFromSlug(slug: string): string {
  const words = slug
    .replace(/\.(md|markdown)$/i, "")
    .replace(/^[\d\s._-]+(?=\D)/, "")
    .split(/[-_\s]+/)
    .filter(Boolean);
  return words.map((w) => w.charAt(0).toLocaleUpperCase() + w.slice(1)).join(" ");
}

/** What an action on the open file may apply to: the file, then each folder it is in, innermost first. */
export function targetsOf(path: string): string[] {
  const segments = path.split("/");
  return segments.map((_, i) => segments.slice(0, segments.length - i).join("/"));
}

/** The text with its leading `#` title replaced by `title` (or put first when it has none; front matter kept). */
export function retitle(text: string, title: string): string {
  const fm = /^---\r?\n[\s\S]*?\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(text)?.[0] ?? "";
  const body = text.slice(fm.length);
  const heading = /^(\s*)#[ \t]+.*?(\r?\n|$)/.exec(body);
  if (!heading) return `${fm}# ${title}\n\n${body}`;
  return `${fm}${heading[1]}# ${title}${heading[2]}${body.slice(heading[0].length)}`;
}

/** The node at `path` in the loaded tree, or null (not there, or inside a folder not loaded yet). */
export function findNode(tree: FileNode, path: string): FileNode | null {
  let at: FileNode | undefined = tree;
  for (const name of path.split("/")) {
    at = at?.children?.find((c) => c.name === name);
    if (!at) return null;
  }
  return at ?? null;
}

/** The files of a loaded node, all levels down. */
export function filesIn(node: FileNode): number {
  return node.kind === "dir" ? (node.children ?? []).reduce((n, c) => n + filesIn(c), 0) : 1;
}
