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
 * when missing), or removed when `node` is null. Folders along the path are copied, the rest shared.
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
      children.push(put(sub, depth + 1));
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
