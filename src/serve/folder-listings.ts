import { type Dirent, type FSWatcher, watch } from "node:fs";
import { join } from "node:path";
import type { FileNode } from "./responses.js";

/** A folder as last listed: its entries and the nodes of its files, kept until the folder changes. */
export interface Listing {
  entries: Dirent[];
  files: Map<string, FileNode>;
}

interface Watched {
  listing: Listing | null;
  watcher: FSWatcher;
}

/**
 * Folder listings kept while the system's file watch (inotify) on each folder reports no change in
 * it: a warm tree then reads no folder and stats no file. Any event in a folder — an entry added,
 * removed or renamed, a file in it written — drops that folder's listing, and a subfolder's own
 * listings when the event names it (it may have been replaced). A folder that cannot be watched
 * (the system's watch limit reached) is never kept: it is listed from disk every time.
 */
export class FolderListings {
  private readonly folders = new Map<string, Watched>();

  constructor(private readonly root: string) {}

  get(rel: string): Listing | null {
    return this.folders.get(rel)?.listing ?? null;
  }

  /** Keep a fresh listing of `rel`, watching the folder from now on (false: it cannot be watched). */
  keep(rel: string, listing: Listing): boolean {
    const known = this.folders.get(rel);
    if (known) {
      known.listing = listing;
      return true;
    }
    let watcher: FSWatcher;
    try {
      watcher = watch(join(this.root, rel), { persistent: false }, (_event, name) =>
        this.changed(rel, typeof name === "string" ? name : null),
      );
    } catch {
      return false;
    }
    watcher.on("error", () => this.forget(rel));
    this.folders.set(rel, { listing, watcher });
    return true;
  }

  /** Something changed in folder `rel` (in its entry `name`, or anywhere when null). */
  changed(rel: string, name: string | null): void {
    const known = this.folders.get(rel);
    if (known) known.listing = null;
    const under = name === null ? rel : rel ? `${rel}/${name}` : name;
    const prefix = under ? `${under}/` : "";
    for (const k of [...this.folders.keys()])
      if (k !== rel && (k === under || k.startsWith(prefix))) this.forget(k);
  }

  /** Files changed through nbook: their folders' listings go at once, before the watch reports them. */
  changedFiles(paths: readonly string[]): void {
    for (const p of paths) {
      const segments = p.split("/");
      const name = segments.pop()!;
      this.changed(segments.join("/"), name);
      // A write may have made its folders, a move or delete removed them: their parents list again.
      for (let i = 0; i < segments.length; i++) {
        const known = this.folders.get(segments.slice(0, i).join("/"));
        if (known) known.listing = null;
      }
    }
  }

  forget(rel: string): void {
    this.folders.get(rel)?.watcher.close();
    this.folders.delete(rel);
  }

  close(): void {
    for (const w of this.folders.values()) w.watcher.close();
    this.folders.clear();
  }
}
