import { type Dirent, lstatSync, readdirSync, readFileSync, readlinkSync, type Stats } from "node:fs";
import { join } from "node:path";
import { isTempName } from "../core/atomic-write.js";
import { objectId } from "./objects.js";
import { FolderWatch } from "./watch.js";

/** A file of the work tree as git sees it: mode (100644, 100755, 120000) and blob id. */
export interface WorkFile {
  mode: string;
  sha: string;
}

/** A file's mode and bytes, as a blob is written of them, and the blob's id when it is known. */
export interface FileContent {
  mode: string;
  data: Buffer;
  sha?: string;
}

/** What was last seen of a file: its stat, the blob it hashed to, and when (ms) it was seen. */
export interface Seen {
  size: number;
  mtime: number;
  ctime: number;
  ino: number;
  mode: string;
  sha: string;
  at: number;
}

/** Where what was seen is kept between processes (the change index), so a new process hashes only what moved. */
export interface SeenStore {
  load(): Map<string, Seen>;
  save(seen: ReadonlyMap<string, Seen | null>): void;
}

interface SeenFolder {
  mtime: number;
  ctime: number;
  ino: number;
  at: number;
  entries: [name: string, folder: boolean][];
}

/**
 * A stat seen this close (ms) to a file's last change may hide a second change made in the same
 * clock tick with the same size: such a file is hashed again until it is older (git's "racily
 * clean" entries). File systems keeping whole seconds get the wider margin.
 */
const RACY_MS = 100;
const RACY_COARSE_MS = 2000;

/** The scan of a process from which the folders are watched: one-off commands never pay for it. */
const WATCH_FROM_SCAN = 3;
/** With a watch, the longest between whole scans (a lost event is caught by the next). */
const WHOLE_SCAN_MS = 60_000;

function trusted(s: { mtime: number; ctime: number; at: number }): boolean {
  const last = Math.max(s.mtime, s.ctime);
  return s.at - last > (last % 1000 === 0 ? RACY_COARSE_MS : RACY_MS);
}

function same(s: { mtime: number; ctime: number; ino: number }, st: Stats): boolean {
  return s.mtime === st.mtimeMs && s.ctime === st.ctimeMs && s.ino === st.ino;
}

function modeOf(st: Stats): string {
  if (st.isSymbolicLink()) return "120000";
  return st.mode & 0o100 ? "100755" : "100644";
}

/** What the history never holds: the control area, any `.git`, the temp files of atomic writes. */
function kept(e: Dirent, top: boolean): boolean {
  if (top && e.name === ".nbook") return false;
  return e.name !== ".git" && !isTempName(e.name);
}

/**
 * The project's files as git would hash them, found by a stat of each (`lstat`, no reading) and
 * compared with what was seen before: only a file whose stat moved is read and hashed again, and
 * only a folder whose stat moved is listed again. This is the scan git's index makes, in-process.
 */
export class WorkTree {
  private readonly seen: Map<string, Seen>;
  private readonly folders = new Map<string, SeenFolder>();
  /** What changed in `seen` since the last flush (null: forgotten). */
  private readonly unsaved = new Map<string, Seen | null>();
  /** The files of the last scan, and when the last whole one was. */
  private last: Map<string, WorkFile> | null = null;
  private wholeAt = 0;
  private scans = 0;
  private watch: FolderWatch | null = null;

  constructor(
    readonly root: string,
    private readonly store: SeenStore | null = null,
  ) {
    this.seen = store?.load() ?? new Map();
  }

  /** The file at `path` now, or null when there is none (absent, a folder, or not a file or link). */
  look(path: string): WorkFile | null {
    const abs = join(this.root, path);
    const st = lstatSync(abs, { throwIfNoEntry: false });
    if (!st || !(st.isFile() || st.isSymbolicLink())) return this.forget(path);
    const known = this.seen.get(path);
    if (known && known.size === st.size && same(known, st) && trusted(known))
      return { mode: known.mode, sha: known.sha };
    return this.hash(path, abs, st)?.file ?? null;
  }

  /** The file at `path` now with its bytes (null: none), read for writing its blob. */
  read(path: string): (WorkFile & FileContent) | null {
    const abs = join(this.root, path);
    const st = lstatSync(abs, { throwIfNoEntry: false });
    if (!st || !(st.isFile() || st.isSymbolicLink())) return this.forget(path);
    const out = this.hash(path, abs, st);
    return out && { ...out.file, data: out.data };
  }

  /**
   * Every file of the work tree, by project-relative path (read it, never change it), with the
   * files in `also` looked at directly. A process that scans again and again (a server, a chat)
   * starts watching the folders, and from then on a scan visits only the folders something
   * happened in, with a whole scan now and then in case an event was lost. `touched`: the paths
   * this scan may have found changed (set, or gone) since the last; null after a whole scan.
   */
  async scan(
    also: readonly string[] = [],
  ): Promise<{ files: Map<string, WorkFile>; touched: Set<string> | null }> {
    this.scans++;
    if (this.watch === null && this.scans >= WATCH_FROM_SCAN) this.watch = new FolderWatch();
    const folders = this.watch?.usable ? await this.watch.take() : null;
    let touched: Set<string> | null = null;
    if (folders === null || this.last === null || Date.now() - this.wholeAt > WHOLE_SCAN_MS) {
      this.last = new Map();
      this.visit("", this.last);
      this.wholeAt = Date.now();
    } else {
      touched = new Set();
      for (const rel of folders) this.revisit(rel, this.last, touched);
    }
    // A whole scan looked at every file, and a folder revisited at each of its own.
    if (touched !== null)
      for (const p of also) {
        if (touched.has(p)) continue;
        const file = this.look(p);
        if (file) this.last.set(p, file);
        else this.last.delete(p);
        touched.add(p);
      }
    return { files: this.last, touched };
  }

  /** Stop watching the folders. */
  close(): void {
    this.watch?.close();
    this.watch = null;
  }

  /** Put a folder's files, and those of every folder under it, in `out`; watch each before listing it. */
  private visit(rel: string, out: Map<string, WorkFile>, touched?: Set<string>): void {
    const abs = rel === "" ? this.root : join(this.root, rel);
    if (this.watch?.usable) this.watch.add(rel, abs);
    const st = lstatSync(abs, { throwIfNoEntry: false });
    if (!st?.isDirectory()) return;
    let f = this.folders.get(rel);
    if (!f || !same(f, st) || !trusted(f)) f = this.list(rel, abs, st);
    for (const [name, isFolder] of f.entries) {
      const path = rel === "" ? name : `${rel}/${name}`;
      if (isFolder) this.visit(path, out, touched);
      else {
        const file = this.look(path);
        if (file) out.set(path, file);
        touched?.add(path);
      }
    }
  }

  /** Bring `out` up to date for a folder something happened in (its files, and folders come or gone). */
  private revisit(rel: string, out: Map<string, WorkFile>, touched: Set<string>): void {
    const abs = rel === "" ? this.root : join(this.root, rel);
    const st = lstatSync(abs, { throwIfNoEntry: false });
    const was = this.folders.get(rel);
    if (!st?.isDirectory() || !was || was.ino !== st.ino) {
      this.drop(rel, out, touched);
      if (st?.isDirectory()) this.visit(rel, out, touched);
      return;
    }
    const before = new Map(was.entries);
    const f = this.list(rel, abs, st);
    const now = new Map(f.entries);
    const pathOf = (name: string) => (rel === "" ? name : `${rel}/${name}`);
    for (const [name, isFolder] of before)
      if (now.get(name) !== isFolder) {
        if (isFolder) this.drop(pathOf(name), out, touched);
        else {
          out.delete(pathOf(name));
          touched.add(pathOf(name));
        }
      }
    for (const [name, isFolder] of f.entries) {
      const path = pathOf(name);
      if (!isFolder) {
        const file = this.look(path);
        if (file) out.set(path, file);
        else out.delete(path);
        touched.add(path);
      } else if (before.get(name) !== true) this.visit(path, out, touched);
      else {
        // A folder removed and made again under the same name is another folder, unwatched.
        const sub = lstatSync(join(this.root, path), { throwIfNoEntry: false });
        if (sub?.ino !== this.folders.get(path)?.ino) {
          this.drop(path, out, touched);
          this.visit(path, out, touched);
        }
      }
    }
  }

  /** Forget a folder and everything under it. */
  private drop(rel: string, out: Map<string, WorkFile>, touched: Set<string>): void {
    const under = (p: string) => rel === "" || p === rel || p.startsWith(`${rel}/`);
    for (const p of [...out.keys()])
      if (under(p)) {
        out.delete(p);
        touched.add(p);
      }
    for (const p of [...this.folders.keys()]) if (under(p)) this.folders.delete(p);
    this.watch?.removeUnder(rel);
  }

  private list(rel: string, abs: string, st: Stats): SeenFolder {
    const at = Date.now();
    const entries = readdirSync(abs, { withFileTypes: true })
      .filter((e) => kept(e, rel === "") && (e.isDirectory() || e.isFile() || e.isSymbolicLink()))
      .map((e): [string, boolean] => [e.name, e.isDirectory()]);
    const f = { mtime: st.mtimeMs, ctime: st.ctimeMs, ino: st.ino, at, entries };
    this.folders.set(rel, f);
    return f;
  }

  /** Keep what was seen since the last flush in the store. */
  flush(): void {
    if (this.unsaved.size === 0) return;
    this.store?.save(this.unsaved);
    this.unsaved.clear();
  }

  private hash(path: string, abs: string, st: Stats): { file: WorkFile; data: Buffer } | null {
    let data: Buffer;
    try {
      data = st.isSymbolicLink() ? Buffer.from(readlinkSync(abs)) : readFileSync(abs);
    } catch {
      return this.forget(path);
    }
    const file = { mode: modeOf(st), sha: objectId("blob", data) };
    const after = lstatSync(abs, { throwIfNoEntry: false });
    // A file that moved while it was read is hashed again next time.
    if (
      after &&
      after.size === data.length &&
      same({ mtime: st.mtimeMs, ctime: st.ctimeMs, ino: st.ino }, after)
    ) {
      const s: Seen = {
        size: st.size,
        mtime: st.mtimeMs,
        ctime: st.ctimeMs,
        ino: st.ino,
        ...file,
        at: Date.now(),
      };
      this.seen.set(path, s);
      this.unsaved.set(path, s);
    } else this.forget(path);
    return { file, data };
  }

  private forget(path: string): null {
    if (this.seen.delete(path)) this.unsaved.set(path, null);
    return null;
  }
}
