import { type Dirent, lstatSync, readdirSync, realpathSync, type Stats } from "node:fs";
import { join } from "node:path";
import { NbError } from "../core/errors.js";
import { readChapter } from "../markdown/chapter.js";
import type { Project } from "../workspace/project.js";
import { readTextSafeSync } from "../workspace/safe-read.js";
import { FolderListings, type Listing } from "./folder-listings.js";
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
 * One project's file tree. Folders are listed from disk and kept while the system's watch on them
 * reports nothing (folder-listings.ts), so edits made anywhere are seen and a warm tree touches no
 * disk. Each Markdown file's title and word count (read as a chapter: see markdown/chapter.ts) is
 * kept by file identity (inode, size, mtime), so a folder listed again re-reads only changed files.
 */
export class FileTreeCache {
  private readonly counts = new Map<string, Counted>();
  private readonly listings: FolderListings;

  constructor(
    private readonly project: Project,
    private readonly budget = TREE_BUDGET,
  ) {
    this.listings = new FolderListings(project.root);
  }

  /** Files nbook just changed: the listings of their folders go now, not when the watch says so. */
  changed(paths: readonly string[]): void {
    this.listings.changedFiles(paths);
  }

  close(): void {
    this.listings.close();
  }

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
        const listing = this.listing(at);
        const entries = listing.entries;
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
          const known = listing.files.get(e.name);
          if (known) return known;
          const made: FileNode = e.isSymbolicLink()
            ? { name: e.name, path: childRel, kind: "link" }
            : (this.fileNode(childRel) ?? { name: e.name, path: childRel, kind: "file", size: 0 });
          listing.files.set(e.name, made);
          return made;
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

  /**
   * A folder's listed entries (folders first, then by name; hidden and temp files left out) and
   * its files' nodes: as kept while the folder is watched and unchanged, else read now.
   */
  private listing(rel: string): Listing {
    const kept = this.listings.get(rel);
    if (kept) return kept;
    let all: Dirent[];
    try {
      all = readdirSync(join(this.project.root, rel), { withFileTypes: true });
    } catch {
      this.listings.forget(rel);
      return { entries: [], files: new Map() };
    }
    const shown = all.filter((e) => !HIDDEN.has(e.name) && !TEMP.test(e.name));
    shown.sort((a, b) =>
      a.isDirectory() !== b.isDirectory() ? (a.isDirectory() ? -1 : 1) : collator.compare(a.name, b.name),
    );
    const listing = { entries: shown.slice(0, FOLDER_LIMIT), files: new Map<string, FileNode>() };
    this.listings.keep(rel, listing);
    return listing;
  }
}

function realpathOrNull(abs: string): string | null {
  try {
    return realpathSync(abs);
  } catch {
    return null;
  }
}
