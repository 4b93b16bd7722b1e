import { type Dirent, lstatSync, readdirSync, type Stats, statSync } from "node:fs";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { isTempName } from "../core/atomic-write.js";
import { NbError } from "../core/errors.js";
import { looksBinary } from "../core/text.js";
import type { Project } from "../workspace/project.js";
import { readFileSafeSync } from "../workspace/safe-read.js";
import { LINE_SLOTS, openSearchDb } from "./db.js";
import { parseQuery, sqlFilter, termPattern } from "./query.js";
import { AREAS, type Area, type SearchHit, type SearchRequest, type SearchResult } from "./schema.js";
import { snippetOf } from "./snippet.js";

/** Files indexed: prose and notes. */
const TEXT_FILE = /\.(md|markdown|txt)$/i;
/** A larger file is left out of the index (it would not be a chapter). */
const MAX_FILE_BYTES = 16 * 1024 * 1024;
const DEFAULT_LIMIT = 20;
/** Connections kept open by `ProjectSearch.shared`, least recently used first. */
const open = new Map<string, { index: ProjectSearch; ino: number }>();
const MAX_OPEN = 4;

/** Where a project keeps its search index. */
export function indexFileOf(project: Project): string {
  return join(project.root, ".nbook", "search.sqlite");
}

interface Identity {
  ino: number;
  size: number;
  mtimeMs: number;
}
interface FileRow extends Identity {
  id: number;
  path: string;
  title: string | null;
  /** The last line number indexed (its rows are the file's id times LINE_SLOTS plus 1 … this). */
  lastLine: number;
}

/** What a sync changed. */
export interface SyncCounts {
  indexed: number;
  removed: number;
}

const same = (a: Identity, b: Stats) => a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;

function areaOf(path: string): Area | null {
  for (const [area, dir] of Object.entries(AREAS)) if (path.startsWith(`${dir}/`)) return area as Area;
  return null;
}

/**
 * The full-text index of one project's manuscript, lorebook and plan, kept by file identity
 * (inode, size, mtime): a sync stats the files and re-reads only those whose identity changed.
 * Links are never followed and every file is read through the safe read, so no text from outside
 * the project is indexed.
 */
export class ProjectSearch {
  private readonly db: Database.Database;
  private readonly files = new Map<string, FileRow>();
  private readonly byId = new Map<number, FileRow>();
  /** The database's data_version when `files` was read: another connection's commit changes it. */
  private seen = -1;

  constructor(private readonly project: Project) {
    this.db = openSearchDb(indexFileOf(project));
  }

  /** This process's index of a project, kept open across searches (a few projects at most). */
  static shared(project: Project): ProjectSearch {
    const file = indexFileOf(project);
    const ino = statSync(file, { throwIfNoEntry: false })?.ino;
    const hit = open.get(file);
    if (hit) open.delete(file);
    if (hit && hit.ino === ino) {
      open.set(file, hit);
      return hit.index;
    }
    hit?.index.close();
    const index = new ProjectSearch(project);
    open.set(file, { index, ino: statSync(file).ino });
    for (const [k, v] of open) {
      if (open.size <= MAX_OPEN) break;
      v.index.close();
      open.delete(k);
    }
    return index;
  }

  close(): void {
    this.db.close();
  }

  /** The file rows as committed, read again only when another connection changed the index. */
  private fresh(): void {
    const version = this.db.pragma("data_version", { simple: true }) as number;
    if (version === this.seen) return;
    this.files.clear();
    this.byId.clear();
    for (const r of this.db
      .prepare("SELECT id, path, ino, size, mtime_ms AS mtimeMs, title, last_line AS lastLine FROM files")
      .all())
      this.remember(r as FileRow);
    this.seen = version;
  }

  private remember(r: FileRow): void {
    this.files.set(r.path, r);
    this.byId.set(r.id, r);
  }

  /** Bring the index up to the files on disk: new and changed files indexed, removed ones dropped. */
  sync(): SyncCounts {
    const seen = new Map<string, Stats>();
    for (const dir of Object.values(AREAS)) this.walk(dir, seen);
    const counts = { indexed: 0, removed: 0 };
    const run = this.db.transaction(() => {
      this.fresh();
      for (const [path, st] of seen) {
        const known = this.files.get(path);
        if (known && same(known, st)) continue;
        if (this.index(path, st)) counts.indexed++;
      }
      for (const path of [...this.files.keys()]) {
        if (!seen.has(path) && this.drop(path)) counts.removed++;
      }
    });
    run.immediate();
    return counts;
  }

  /** Re-index these project-relative files now (a write just made), or drop those gone. */
  update(paths: readonly string[]): SyncCounts {
    const counts = { indexed: 0, removed: 0 };
    this.db
      .transaction(() => {
        this.fresh();
        for (const path of paths) {
          if (!areaOf(path) || !TEXT_FILE.test(path)) continue;
          const st = lstatSync(join(this.project.root, path), { throwIfNoEntry: false });
          if (st?.isFile()) {
            const known = this.files.get(path);
            if (!(known && same(known, st)) && this.index(path, st)) counts.indexed++;
          } else if (this.drop(path)) counts.removed++;
        }
      })
      .immediate();
    return counts;
  }

  private walk(rel: string, out: Map<string, Stats>): void {
    const abs = join(this.project.root, rel);
    let entries: Dirent[];
    try {
      // A link is not a folder here: a link out of the project is never walked into.
      if (!lstatSync(abs).isDirectory()) return;
      entries = readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const child = `${rel}/${e.name}`;
      if (e.isDirectory()) this.walk(child, out);
      else if (e.isFile() && TEXT_FILE.test(e.name) && !isTempName(e.name)) {
        const st = statSync(join(abs, e.name), { throwIfNoEntry: false });
        if (st?.isFile()) out.set(child, st);
      }
    }
  }

  /** Index one file's lines under its id (kept across re-indexing); false when it cannot be read as text. */
  private index(path: string, st: Stats): boolean {
    let buf: Buffer | null;
    try {
      buf = readFileSafeSync(join(this.project.root, path), {
        label: path,
        root: this.project.realRoot,
        maxBytes: MAX_FILE_BYTES,
      });
    } catch (e) {
      // Outside the project, too large or not a regular file: not indexed (and not kept if it was).
      if (!(e instanceof NbError)) throw e;
      buf = null;
    }
    if (buf === null || looksBinary(buf)) {
      this.drop(path);
      return false;
    }
    const lines = buf.toString("utf8").split(/\r?\n/);
    const title =
      lines
        .find((l) => /^#\s+\S/.test(l))
        ?.replace(/^#\s+/, "")
        .trim() ?? null;
    const known = this.files.get(path);
    // Lines past the slot range of one file are not indexed (a file of a million lines is no chapter).
    const n = Math.min(lines.length, LINE_SLOTS - 1);
    const row: FileRow = {
      id: known?.id ?? 0,
      path,
      ino: st.ino,
      size: st.size,
      mtimeMs: st.mtimeMs,
      title,
      lastLine: n,
    };
    if (known) {
      this.deleteLines(known);
      this.db
        .prepare("UPDATE files SET ino = ?, size = ?, mtime_ms = ?, title = ?, last_line = ? WHERE id = ?")
        .run(row.ino, row.size, row.mtimeMs, row.title, row.lastLine, row.id);
    } else {
      row.id = Number(
        this.db
          .prepare(
            "INSERT INTO files (path, ino, size, mtime_ms, title, last_line) VALUES (?, ?, ?, ?, ?, ?)",
          )
          .run(path, row.ino, row.size, row.mtimeMs, row.title, row.lastLine).lastInsertRowid,
      );
    }
    const insert = this.db.prepare("INSERT INTO lines (rowid, text) VALUES (?, ?)");
    const base = row.id * LINE_SLOTS;
    for (let i = 0; i < n; i++) if (lines[i]!.trim() !== "") insert.run(base + i + 1, lines[i]);
    this.remember(row);
    return true;
  }

  /** Drop a file's rows one rowid at a time (a blank line has none: deleting it is a no-op). */
  private deleteLines(file: FileRow): void {
    const del = this.db.prepare("DELETE FROM lines WHERE rowid = ?");
    const base = file.id * LINE_SLOTS;
    for (let i = 1; i <= file.lastLine; i++) del.run(base + i);
  }

  private drop(path: string): boolean {
    const known = this.files.get(path);
    if (!known) return false;
    this.deleteLines(known);
    this.db.prepare("DELETE FROM files WHERE id = ?").run(known.id);
    this.files.delete(path);
    this.byId.delete(known.id);
    return true;
  }

  /**
   * The lines matching a query, in the index's order (files as first indexed, lines in order) and
   * then shown by path and line. Run on the index as it is: sync first to see changes on disk.
   */
  search(req: SearchRequest): SearchResult {
    const terms = parseQuery(req.query);
    this.fresh();
    const patterns = terms.map(termPattern);
    const filter = sqlFilter(terms);
    const areas = new Set<Area>(req.in ?? (Object.keys(AREAS) as Area[]));
    const limit = req.limit ?? DEFAULT_LIMIT;
    const hits: SearchHit[] = [];
    let more = false;
    const rows = this.db
      .prepare(`SELECT rowid AS id, text FROM lines WHERE ${filter.where}`)
      .iterate(...filter.params) as IterableIterator<{ id: number; text: string }>;
    for (const r of rows) {
      const file = this.byId.get(Math.floor(r.id / LINE_SLOTS));
      const area = file ? areaOf(file.path) : null;
      if (!file || !area || !areas.has(area)) continue;
      const s = snippetOf(r.text, patterns);
      if (!s) continue;
      if (hits.length === limit) {
        more = true;
        break;
      }
      const chapter = area === "manuscript" ? (file.path.split("/")[1] ?? null) : null;
      hits.push({
        path: file.path,
        area,
        chapter: chapter?.match(TEXT_FILE) ? null : chapter,
        title: file.title,
        line: r.id % LINE_SLOTS,
        ...s,
      });
    }
    rows.return?.();
    hits.sort((a, b) => (a.path === b.path ? a.line - b.line : a.path < b.path ? -1 : 1));
    return { query: req.query, hits, more };
  }
}
