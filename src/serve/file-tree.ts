import { type Dirent, lstatSync, readdirSync, realpathSync, type Stats } from "node:fs";
import { join } from "node:path";
import { NbError } from "../core/errors.js";
import { readChapter } from "../markdown/chapter.js";
import type { Project } from "../workspace/project.js";
import { readTextSafeSync } from "../workspace/safe-read.js";
import type { FileNode } from "./responses.js";

/** Nodes one answer lists at most; folders past it come back `lazy`, to be asked for by path. */
export const TREE_BUDGET = 20_000;
/** Entries of one folder listed at most (a folder is listed whole or not at all below this). */
export const FOLDER_LIMIT = 20_000;
/** Markdown files larger than this get no word count (it would mean reading them all). */
const WORD_COUNT_MAX_BYTES = 1024 * 1024;
/** Folders never listed: the control area (databases, agent config) and VCS data. */
const HIDDEN = new Set([".nbook", ".git", "node_modules"]);
/** A writer's temp file (`.<name>.<hex>.tmp`), never listed. */
const TEMP = /^\..*\.tmp$/;

const collator = new Intl.Collator();

interface Counted {
  ino: number;
  size: number;
  mtimeMs: number;
  words: number | undefined;
  title: string | null;
}

/** A tree answer: the folder asked for, and whether any folder's entries were cut at FOLDER_LIMIT. */
export interface TreeAnswer {
  tree: FileNode;
  truncated: boolean;
}

/**
 * One project's file tree, listed from disk on every request (so edits made anywhere are seen),
 * with each Markdown file's title and word count (read as a chapter: see markdown/chapter.ts) kept by
 * file identity (inode, size, mtime): a warm listing reads no file, and a changed file is read again
 * the next time it is listed or reported changed.
 */
export class FileTreeCache {
  private readonly counts = new Map<string, Counted>();

  constructor(
    private readonly project: Project,
    private readonly budget = TREE_BUDGET,
  ) {}

  /**
   * The folder `rel` ("" for the project) breadth first: folders are filled level by level while
   * the answer stays within TREE_BUDGET nodes; the rest come back `lazy`, without children.
   */
  tree(rel = ""): TreeAnswer {
    if (rel !== "") this.checkFolder(rel);
    const name = rel === "" ? this.project.name : (rel.split("/").at(-1) ?? rel);
    const root: FileNode = { name, path: rel || ".", kind: "dir" };
    let truncated = false;
    let budget = this.budget;
    let level: { node: FileNode; rel: string }[] = [{ node: root, rel }];
    while (level.length) {
      const next: typeof level = [];
      for (const { node, rel: at } of level) {
        const entries = this.entries(at);
        if (entries.length > budget) {
          node.lazy = true;
          continue;
        }
        if (entries.length === FOLDER_LIMIT) truncated = true;
        budget -= entries.length;
        node.children = entries.map((e) => {
          const childRel = at ? `${at}/${e.name}` : e.name;
          if (e.isDirectory()) {
            const child: FileNode = { name: e.name, path: childRel, kind: "dir" };
            next.push({ node: child, rel: childRel });
            return child;
          }
          if (e.isSymbolicLink()) return { name: e.name, path: childRel, kind: "link" };
          return this.fileNode(childRel) ?? { name: e.name, path: childRel, kind: "file", size: 0 };
        });
      }
      level = next;
    }
    return { tree: root, truncated };
  }

  /**
   * A folder asked for by path must be a listed folder really inside the project, reached through
   * no link (a link is listed, never followed).
   */
  private checkFolder(rel: string): void {
    const segments = rel.split("/");
    const abs = join(this.project.root, ...segments);
    const listed = segments.every((s) => s !== "" && s !== "." && s !== ".." && !HIDDEN.has(s));
    const real = listed ? realpathOrNull(abs) : null;
    if (real !== join(this.project.realRoot, ...segments) || !lstatSync(abs).isDirectory())
      throw new NbError("not_found", `No folder ${rel} in the project's file tree`, {
        fields: [{ pointer: "/query/path", message: "not a listed folder of the project" }],
      });
  }

  /** A file's node as it is now (for a change event), or null when it is gone or not a file or link. */
  fileNode(rel: string): FileNode | null {
    const abs = join(this.project.root, rel);
    const st = lstatSync(abs, { throwIfNoEntry: false });
    const name = rel.split("/").at(-1) ?? rel;
    if (st?.isSymbolicLink()) return { name, path: rel, kind: "link" };
    if (!st?.isFile()) {
      this.counts.delete(rel);
      return null;
    }
    const node: FileNode = { name, path: rel, kind: "file", size: st.size };
    const counted = this.count(rel, abs, st);
    if (counted?.words !== undefined) node.words = counted.words;
    if (counted?.title) node.title = counted.title;
    return node;
  }

  private count(rel: string, abs: string, st: Stats): Counted | undefined {
    if (!/\.md$/i.test(rel) || st.size > WORD_COUNT_MAX_BYTES) return undefined;
    const known = this.counts.get(rel);
    if (known && known.ino === st.ino && known.size === st.size && known.mtimeMs === st.mtimeMs) return known;
    let words: number | undefined;
    let title: string | null = null;
    try {
      // Through the safe read: a file swapped for a FIFO or a link out since the stat is not read.
      const text = readTextSafeSync(abs, {
        label: rel,
        root: this.project.realRoot,
        maxBytes: WORD_COUNT_MAX_BYTES,
      });
      ({ words, title } = readChapter(text ?? ""));
    } catch {
      words = undefined;
    }
    const counted = { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, words, title };
    this.counts.set(rel, counted);
    return counted;
  }

  /** A folder's listed entries, folders first, then by name; hidden and temp files left out. */
  private entries(rel: string): Dirent[] {
    let all: Dirent[];
    try {
      all = readdirSync(join(this.project.root, rel), { withFileTypes: true });
    } catch {
      return [];
    }
    const shown = all.filter((e) => !HIDDEN.has(e.name) && !TEMP.test(e.name));
    shown.sort((a, b) =>
      a.isDirectory() !== b.isDirectory() ? (a.isDirectory() ? -1 : 1) : collator.compare(a.name, b.name),
    );
    return shown.slice(0, FOLDER_LIMIT);
  }
}

function realpathOrNull(abs: string): string | null {
  try {
    return realpathSync(abs);
  } catch {
    return null;
  }
}
