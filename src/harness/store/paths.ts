import type Database from "better-sqlite3";
import { type EntryRow, toEntry } from "./rows.js";
import type { Entry, Session } from "./schema.js";

/** How far an incremental update walks up before a full reload is cheaper. */
const MAX_WALK = 256;

type Row = [id: number, parentId: number | null, kind: string, data: string, createdAt: string];

interface CachedPath {
  entries: Entry[];
  /** entry id → index in `entries` */
  index: Map<string, number>;
}

// Shallow on purpose: entry and data objects are frozen; deep freezing doubled the cold load time.
function freezeEntry(e: Entry): Entry {
  Object.freeze(e.data);
  return Object.freeze(e);
}

/**
 * Loads active paths (root → leaf) and keeps the last few in memory. Entries are immutable, so a
 * cached path stays a valid prefix forever; only the leaf moves. A load then costs O(entries added
 * since), not O(path). Returned entries are shared (entry and data frozen): treat them as read-only.
 */
export class ActivePaths {
  private readonly cache = new Map<string, CachedPath>();
  private readonly segment: Database.Statement;
  private readonly segOf: Database.Statement;
  private readonly one: Database.Statement;
  private readonly range: Database.Statement;
  private readonly latestOf: Database.Statement;

  constructor(
    db: Database.Database,
    private readonly maxSessions = 16,
  ) {
    // A segment is a chain ordered by id (see the entries table), so one range scan reads it.
    this.segment = db
      .prepare(
        "SELECT id, parent_id, kind, data, created_at FROM entries WHERE seg = ? AND id <= ? ORDER BY id",
      )
      .raw(true);
    this.segOf = db.prepare("SELECT seg FROM entries WHERE id = ?").pluck(true);
    this.one = db.prepare("SELECT id, parent_id, kind, data, created_at FROM entries WHERE id = ?").raw(true);
    const columns = "id, session_id, parent_id, depth, kind, data, created_at";
    this.range = db.prepare(
      `SELECT ${columns} FROM entries WHERE seg = ? AND id >= ? AND id <= ? ORDER BY id`,
    );
    this.latestOf = db.prepare(
      `SELECT ${columns} FROM entries WHERE seg = ? AND kind = ? AND id <= ? AND instr(data, ?) > 0
       ORDER BY id DESC LIMIT 1`,
    );
  }

  /**
   * The entries of the active path from entry `from` (on it) to the leaf, root side first: one
   * range scan per segment it crosses, so its cost is that of the entries read.
   */
  from(session: Pick<Session, "id" | "leafId">, from: number): Entry[] {
    const parts: Entry[][] = [];
    for (const { seg, upTo } of this.segments(session)) {
      parts.push((this.range.all(seg, from, upTo) as EntryRow[]).map(toEntry));
      if (seg <= from) break;
    }
    return parts.reverse().flat();
  }

  /**
   * The latest entry of `kind` on the active path before entry id `before` whose stored data
   * contains `contains` (any: ""), or null: one indexed lookup per segment of the path.
   */
  latest(
    session: Pick<Session, "id" | "leafId">,
    kind: string,
    before = Number.MAX_SAFE_INTEGER,
    contains = "",
  ): Entry | null {
    for (const { seg, upTo } of this.segments(session)) {
      const row = this.latestOf.get(seg, kind, Math.min(upTo, before - 1), contains) as EntryRow | undefined;
      if (row) return toEntry(row);
    }
    return null;
  }

  /** The segments of the active path, leaf first, each with the last id of it on the path. */
  private *segments(session: Pick<Session, "id" | "leafId">): Generator<{ seg: number; upTo: number }> {
    let upTo: number | null = session.leafId === null ? null : Number(session.leafId);
    while (upTo !== null) {
      const seg = this.segOf.get(upTo) as number;
      yield { seg, upTo };
      // A segment's first entry has the segment's id; its parent ends the segment above.
      upTo = (this.one.get(seg) as Row)[1];
    }
  }

  /** The active path of a session, root first. */
  load(session: Pick<Session, "id" | "leafId">): Entry[] {
    if (session.leafId === null) return [];
    const cached = this.cache.get(session.id);
    if (cached) {
      const at = cached.index.get(session.leafId);
      if (at !== undefined) return cached.entries.slice(0, at + 1);
      const extended = this.extend(session, cached);
      if (extended) return extended.slice();
    }
    const full = this.fullLoad(session.id, Number(session.leafId));
    this.remember(session.id, full);
    return full.slice();
  }

  // Walk up from the new leaf until the walk meets the cached path; null when it is too far away.
  private extend(session: Pick<Session, "id" | "leafId">, cached: CachedPath): Entry[] | null {
    const rows: Row[] = [];
    let id: number | null = Number(session.leafId);
    let joinAt = -1;
    while (id !== null && rows.length < MAX_WALK) {
      const known = cached.index.get(String(id));
      if (known !== undefined) {
        joinAt = known;
        break;
      }
      const row = this.one.get(id) as Row;
      rows.push(row);
      id = row[1];
    }
    if (joinAt < 0 && id !== null) return null;
    rows.reverse();
    const base = joinAt === cached.entries.length - 1 ? cached : null;
    const entries = base ? base.entries : cached.entries.slice(0, joinAt + 1);
    const added = this.toEntries(session.id, rows, entries.length, joinAt >= 0 ? entries[joinAt].id : null);
    if (base) {
      for (const e of added) {
        base.index.set(e.id, entries.length);
        entries.push(e);
      }
      this.touch(session.id, base);
      return entries;
    }
    const path = entries.concat(added);
    this.remember(session.id, path);
    return path;
  }

  private fullLoad(sessionId: string, leaf: number): Entry[] {
    const chunks: Row[][] = [];
    let upTo = leaf;
    for (;;) {
      const rows = this.segment.all(this.segOf.get(upTo), upTo) as Row[];
      chunks.push(rows);
      const parent = rows[0][1];
      if (parent === null) break;
      upTo = parent;
    }
    const rows: Row[] = [];
    for (let c = chunks.length - 1; c >= 0; c--) for (const r of chunks[c]) rows.push(r);
    return this.toEntries(sessionId, rows, 0, null);
  }

  // On a path, depth is the position and the parent is the previous entry.
  private toEntries(sessionId: string, rows: Row[], depth0: number, parent0: string | null): Entry[] {
    const out = new Array<Entry>(rows.length);
    let parentId = parent0;
    for (let i = 0; i < rows.length; i++) {
      const [id, , kind, data, createdAt] = rows[i];
      const e = freezeEntry({
        id: String(id),
        sessionId,
        parentId,
        depth: depth0 + i,
        kind,
        data: JSON.parse(data),
        createdAt,
      } as Entry);
      out[i] = e;
      parentId = e.id;
    }
    return out;
  }

  private remember(sessionId: string, entries: Entry[]): void {
    const index = new Map<string, number>();
    for (let i = 0; i < entries.length; i++) index.set(entries[i].id, i);
    this.touch(sessionId, { entries, index });
  }

  private touch(sessionId: string, path: CachedPath): void {
    this.cache.delete(sessionId);
    this.cache.set(sessionId, path);
    if (this.cache.size > this.maxSessions) this.cache.delete(this.cache.keys().next().value as string);
  }
}
