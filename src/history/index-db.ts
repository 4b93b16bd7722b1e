import type Database from "better-sqlite3";
import { NbError } from "../core/errors.js";
import { openVersionedDb } from "../core/sqlite.js";
import { type Actor, type Change, type ChangeFilter, ChangeSchema } from "./schema.js";
import type { Seen, SeenStore } from "./worktree.js";

const VERSION = 2;

// `seq` is the order changes were recorded in (a write's id is made before it runs, so outside edits
// recorded just before it have later ids); listings and reverts go by it.
// Version 2 adds each change's turn (the schema runs whole on a fresh file, so the column is added
// by ALTER in both cases). change_paths answers `--path` and blame's commit → change lookups without scanning JSON.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS changes (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  time TEXT NOT NULL,
  actor TEXT NOT NULL,
  session TEXT,
  profile TEXT,
  tool TEXT,
  call_id TEXT,
  targets TEXT,
  summary TEXT NOT NULL,
  commit_sha TEXT,
  reverts TEXT
);
CREATE INDEX IF NOT EXISTS changes_session ON changes(session, seq);
CREATE INDEX IF NOT EXISTS changes_time ON changes(time);
CREATE INDEX IF NOT EXISTS changes_commit ON changes(commit_sha);
CREATE TABLE IF NOT EXISTS change_paths (
  path TEXT NOT NULL,
  seq INTEGER NOT NULL REFERENCES changes(seq) ON DELETE CASCADE,
  PRIMARY KEY (path, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS change_paths_seq ON change_paths(seq);
ALTER TABLE changes ADD COLUMN turn TEXT;
CREATE INDEX IF NOT EXISTS changes_turn ON changes(turn);
`;

// The work tree's stat cache (worktree.ts): what each file hashed to, at which stat. A cache, not
// a record: made on open whatever the schema version, and never migrated.
const SEEN = `
CREATE TABLE IF NOT EXISTS seen (
  path TEXT PRIMARY KEY,
  size INTEGER NOT NULL,
  mtime REAL NOT NULL,
  ctime REAL NOT NULL,
  ino INTEGER NOT NULL,
  mode TEXT NOT NULL,
  sha TEXT NOT NULL,
  at REAL NOT NULL
) WITHOUT ROWID;
`;

interface Row {
  id: string;
  time: string;
  actor: string;
  session: string | null;
  profile: string | null;
  tool: string | null;
  call_id: string | null;
  turn: string | null;
  targets: string | null;
  summary: string;
  commit_sha: string | null;
  reverts: string | null;
}

const COLUMNS =
  "c.id, c.time, c.actor, c.session, c.profile, c.tool, c.call_id, c.turn, c.targets, c.summary, c.commit_sha, c.reverts";

const KEYS = COLUMNS.split(",").map((c) => c.trim().slice(2));

function rowOf(values: unknown[]): Row {
  const row: Record<string, unknown> = {};
  for (let i = 0; i < KEYS.length; i++) row[KEYS[i]] = values[i];
  return row as unknown as Row;
}

function toChange(r: Row): Change {
  return {
    id: r.id,
    time: r.time,
    actor: r.actor as Actor,
    session: r.session,
    profile: r.profile,
    tool: r.tool,
    callId: r.call_id,
    turn: r.turn,
    targets: r.targets === null ? null : (JSON.parse(r.targets) as string[]),
    summary: r.summary,
    commit: r.commit_sha,
    reverts: r.reverts === null ? null : (JSON.parse(r.reverts) as string[]),
  };
}

/**
 * The change index of one project (`.nbook/history.sqlite`): one row per change, the history
 * commit it is in, and the paths it touched. It lives beside history.git rather than in
 * project.sqlite so that the history is one thing to prune, repair or delete, and a file change's
 * record never waits on a plot write's lock; `nbook history repair` rebuilds it from the commits.
 */
export class ChangeIndex {
  private readonly db: Database.Database;

  constructor(file: string) {
    this.db = openVersionedDb({ what: "the history index", file, version: VERSION, sql: SCHEMA });
    this.db.exec(SEEN);
  }

  /** Add one change (validated) with the paths it touched; `first`: before every other (a pruned history's start). */
  add(change: Change, first = false): void {
    const c = ChangeSchema.parse(change);
    this.db.transaction(() => {
      const seq = first
        ? (this.db.prepare("SELECT COALESCE(MIN(seq), 1) - 1 AS s FROM changes").get() as { s: number }).s
        : null;
      const info = this.db
        .prepare(
          `INSERT INTO changes (seq, id, time, actor, session, profile, tool, call_id, turn, targets, summary, commit_sha, reverts)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          seq,
          c.id,
          c.time,
          c.actor,
          c.session,
          c.profile,
          c.tool,
          c.callId,
          c.turn,
          c.targets === null ? null : JSON.stringify(c.targets),
          c.summary,
          c.commit,
          c.reverts === null ? null : JSON.stringify(c.reverts),
        );
      const path = this.db.prepare("INSERT OR IGNORE INTO change_paths (path, seq) VALUES (?, ?)");
      for (const p of c.targets ?? []) path.run(p, info.lastInsertRowid);
    })();
  }

  /** Changes matching the filter, newest first. */
  list(f: ChangeFilter = {}): Change[] {
    const where: string[] = [];
    const args: unknown[] = [];
    if (f.session !== undefined) {
      where.push("c.session = ?");
      args.push(f.session);
    }
    if (f.turn !== undefined) {
      where.push("c.turn = ?");
      args.push(f.turn);
    }
    if (f.callId !== undefined) {
      where.push("c.call_id = ?");
      args.push(f.callId);
    }
    if (f.since !== undefined) {
      where.push("c.time >= ?");
      args.push(f.since);
    }
    if (f.before !== undefined) {
      where.push("c.time < ?");
      args.push(f.before);
    }
    if (f.path !== undefined) {
      where.push("c.seq IN (SELECT seq FROM change_paths WHERE path = ?)");
      args.push(f.path);
    }
    const sql = `SELECT ${COLUMNS} FROM changes c${where.length ? ` WHERE ${where.join(" AND ")}` : ""}
      ORDER BY c.seq DESC${f.limit ? ` LIMIT ${f.limit}` : ""}`;
    // Rows as arrays: a listing of thousands of changes spends most of its time making row objects.
    const rows = this.db
      .prepare(sql)
      .raw(true)
      .all(...args) as unknown[][];
    return rows.map((r) => toChange(rowOf(r)));
  }

  /** The change with this id, or a unique prefix of one (at least 6 characters); `not_found` else. */
  get(idOrPrefix: string): Change {
    const exact = this.db.prepare(`SELECT ${COLUMNS} FROM changes c WHERE c.id = ?`).get(idOrPrefix) as
      | Row
      | undefined;
    if (exact) return toChange(exact);
    if (/^c[0-9a-z]{5,}$/.test(idOrPrefix)) {
      const rows = this.db
        .prepare(`SELECT ${COLUMNS} FROM changes c WHERE c.id >= ? AND c.id < ? LIMIT 2`)
        .all(idOrPrefix, `${idOrPrefix}~`) as Row[];
      if (rows.length === 1) return toChange(rows[0]);
      if (rows.length > 1)
        throw new NbError("invalid_input", `Change id prefix "${idOrPrefix}" is ambiguous; give more of it`);
    }
    throw new NbError("not_found", `No change with id "${idOrPrefix}" (see nbook history)`);
  }

  /** These changes, newest recorded first. */
  newestFirst(changes: readonly Change[]): Change[] {
    const stmt = this.db.prepare("SELECT seq FROM changes WHERE id = ?");
    const seq = new Map(
      changes.map((c) => [c.id, (stmt.get(c.id) as { seq: number } | undefined)?.seq ?? 0]),
    );
    return [...changes].sort((a, b) => (seq.get(b.id) ?? 0) - (seq.get(a.id) ?? 0));
  }

  /** The change recorded in this history commit, if any. */
  byCommit(commit: string): Change | null {
    const r = this.db.prepare(`SELECT ${COLUMNS} FROM changes c WHERE c.commit_sha = ?`).get(commit) as
      | Row
      | undefined;
    return r ? toChange(r) : null;
  }

  /** The changes of these commits, keyed by commit. */
  byCommits(commits: readonly string[]): Map<string, Change> {
    const out = new Map<string, Change>();
    const stmt = this.db.prepare(`SELECT ${COLUMNS} FROM changes c WHERE c.commit_sha = ?`);
    for (const sha of commits) {
      const r = stmt.get(sha) as Row | undefined;
      if (r) out.set(sha, toChange(r));
    }
    return out;
  }

  /** Remove the changes before this time (prune); how many went. */
  removeBefore(time: string): number {
    return this.db.prepare("DELETE FROM changes WHERE time < ?").run(time).changes;
  }

  /** Point the changes of commit `from` at `to` (the same change, re-made by a prune). */
  recommit(from: string, to: string): void {
    this.db.prepare("UPDATE changes SET commit_sha = ? WHERE commit_sha = ?").run(to, from);
  }

  /** Remove every change (before a rebuild). */
  clear(): void {
    this.db.exec("DELETE FROM changes");
  }

  /** How many changes, and the time of the oldest. */
  stats(): { changes: number; oldest: string | null; newest: string | null } {
    const r = this.db.prepare("SELECT COUNT(*) AS n, MIN(time) AS o, MAX(time) AS l FROM changes").get() as {
      n: number;
      o: string | null;
      l: string | null;
    };
    return { changes: r.n, oldest: r.o, newest: r.l };
  }

  /** The work tree's stat cache, kept here so a new process re-reads only the files that moved. */
  seenStore(): SeenStore {
    return {
      load: () => {
        const rows = this.db
          .prepare("SELECT path, size, mtime, ctime, ino, mode, sha, at FROM seen")
          .all() as ({
          path: string;
        } & Seen)[];
        return new Map(rows.map(({ path, ...s }) => [path, s]));
      },
      save: (seen) => {
        const put = this.db.prepare(
          "INSERT OR REPLACE INTO seen (path, size, mtime, ctime, ino, mode, sha, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        );
        const drop = this.db.prepare("DELETE FROM seen WHERE path = ?");
        this.db.transaction(() => {
          for (const [path, s] of seen)
            if (s === null) drop.run(path);
            else put.run(path, s.size, s.mtime, s.ctime, s.ino, s.mode, s.sha, s.at);
        })();
      },
    };
  }

  /** Run `fn` in one transaction (a rebuild adds many rows). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  close(): void {
    this.db.close();
  }
}
