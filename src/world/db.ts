import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { rowLogDdl } from "../core/row-log.js";

/**
 * The top-level attribute of a stored patch path (its first segment, decoded), as SQL; queries
 * spell it exactly so, to use the index on it (`topAttr` computes the same in JS).
 */
const TOP_OF_PATH = `replace(replace(CASE WHEN instr(substr(path, 2), '/') > 0
  THEN substr(path, 2, instr(substr(path, 2), '/') - 1) ELSE substr(path, 2) END, '~1', '/'), '~0', '~')`;

/** The log: subjects, slices and patches. It is the truth; everything else is derived from it. */
const LOG_DDL = `
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS subjects(id TEXT PRIMARY KEY, type TEXT NOT NULL, name TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS subjects_type ON subjects(type, id);
CREATE TABLE IF NOT EXISTS slices(
  id TEXT PRIMARY KEY, instant INTEGER NOT NULL UNIQUE,
  title TEXT NOT NULL DEFAULT '', summary TEXT NOT NULL DEFAULT '', kind TEXT NOT NULL DEFAULT 'event');
CREATE TABLE IF NOT EXISTS patches(
  id TEXT PRIMARY KEY, slice_id TEXT NOT NULL, subject_id TEXT NOT NULL, instant INTEGER NOT NULL,
  seq INTEGER NOT NULL, path TEXT NOT NULL, op TEXT NOT NULL, value TEXT, summary TEXT);
CREATE UNIQUE INDEX IF NOT EXISTS patches_slice ON patches(slice_id, seq);
CREATE INDEX IF NOT EXISTS patches_subject ON patches(subject_id, instant, seq);
CREATE TABLE IF NOT EXISTS text_bodies(id INTEGER PRIMARY KEY, body TEXT NOT NULL UNIQUE, vector BLOB, model TEXT);
CREATE VIRTUAL TABLE IF NOT EXISTS text_fts USING fts5(body, content='text_bodies', content_rowid='id', tokenize='trigram');
${rowLogDdl("history_row")}
`;

/** The word index of text bodies (whole words of alphabetic scripts; the trigram index finds the rest). */
const WORDS_DDL = `CREATE VIRTUAL TABLE IF NOT EXISTS text_words USING fts5(body, content='text_bodies', content_rowid='id',
  tokenize='unicode61 remove_diacritics 2')`;

/** Bumped whenever the derived tables change shape: a database from before is re-derived on open. */
const DERIVED_VERSION = "5";

/**
 * Derived tables, kept in step with the log in the same transaction, all per subject and
 * top-level attribute (attributes fold independently, so a write re-derives only those it
 * touches): which attributes a subject has and when each last changed (`state_latest`), a recent
 * value of each (`snapshots`: the latest one, or one a few patches before it for a large value),
 * sparser checkpoints, E issues, and the live intervals of references and text entries (texts'
 * bodies are shared, with an FTS5 trigram index). A value is JSON; NULL means the attribute is absent.
 */
const DERIVED_DDL = `
CREATE INDEX IF NOT EXISTS patches_fold ON patches(subject_id, (${TOP_OF_PATH}), instant, seq, op, path, value);
CREATE TABLE IF NOT EXISTS state_latest(subject_id TEXT NOT NULL, top TEXT NOT NULL, ord INTEGER NOT NULL,
  last_instant INTEGER NOT NULL, UNIQUE(subject_id, top));
CREATE TABLE IF NOT EXISTS snapshots(subject_id TEXT NOT NULL, top TEXT NOT NULL, instant INTEGER NOT NULL,
  value TEXT, since_checkpoint INTEGER NOT NULL, UNIQUE(subject_id, top));
CREATE TABLE IF NOT EXISTS checkpoints(subject_id TEXT NOT NULL, top TEXT NOT NULL, instant INTEGER NOT NULL,
  value TEXT, UNIQUE(subject_id, top, instant));
CREATE TABLE IF NOT EXISTS issues(id INTEGER PRIMARY KEY, subject_id TEXT NOT NULL, top TEXT NOT NULL,
  slice_id TEXT, patch_id TEXT, instant INTEGER, label TEXT NOT NULL, attr TEXT NOT NULL, op TEXT,
  message TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS refs(id INTEGER PRIMARY KEY, subject_id TEXT NOT NULL, top TEXT NOT NULL,
  attr TEXT NOT NULL, target TEXT NOT NULL, from_instant INTEGER NOT NULL, to_instant INTEGER);
CREATE TABLE IF NOT EXISTS texts(id INTEGER PRIMARY KEY, subject_id TEXT NOT NULL, top TEXT NOT NULL,
  attr TEXT NOT NULL, body_id INTEGER NOT NULL, from_instant INTEGER NOT NULL, to_instant INTEGER);
CREATE INDEX IF NOT EXISTS issues_subject ON issues(subject_id, top, instant);
CREATE INDEX IF NOT EXISTS issues_slice ON issues(slice_id);
CREATE INDEX IF NOT EXISTS issues_patch ON issues(patch_id);
CREATE INDEX IF NOT EXISTS refs_target ON refs(target, to_instant);
CREATE INDEX IF NOT EXISTS refs_from ON refs(subject_id, top, from_instant);
CREATE INDEX IF NOT EXISTS refs_to ON refs(subject_id, top, to_instant);
CREATE INDEX IF NOT EXISTS texts_from ON texts(subject_id, top, from_instant);
CREATE INDEX IF NOT EXISTS texts_to ON texts(subject_id, top, to_instant);
CREATE INDEX IF NOT EXISTS texts_body ON texts(body_id, to_instant);
`;

/** Every derived table, as `World.rebuild` empties them. */
export const DERIVED_TABLES = ["state_latest", "snapshots", "checkpoints", "issues", "refs", "texts"];

/** Indexes on the log that earlier derived versions made and this one does not use. */
const OBSOLETE_INDEXES = ["patches_top"];

/**
 * Bring a database written by an older version to the current shape: derived tables of another
 * shape are dropped and recreated empty, and the schema fingerprint is forgotten so the next
 * schema load re-derives them from the log (which never changes shape). Text bodies (and their
 * stored vectors) are kept.
 */
function migrate(db: Database.Database): void {
  const version = db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'derived'").get();
  if (version?.value === DERIVED_VERSION) return;
  const words = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'text_words'").get();
  if (!words) {
    db.exec(WORDS_DDL);
    db.exec("INSERT INTO text_words(text_words) VALUES('rebuild')");
  }
  for (const t of DERIVED_TABLES) db.exec(`DROP TABLE IF EXISTS ${t}`);
  for (const i of OBSOLETE_INDEXES) db.exec(`DROP INDEX IF EXISTS ${i}`);
  db.exec("DELETE FROM meta WHERE key = 'schema'");
  db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('derived', ?)").run(DERIVED_VERSION);
}

/** Open (creating or migrating if needed) a world database with WAL and the tables above. */
export function openWorldDb(file: string): Database.Database {
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 5000");
  db.transaction(() => {
    db.exec(LOG_DDL);
    migrate(db);
    db.exec(DERIVED_DDL);
  }).immediate();
  return db;
}

/** A patch row as stored. */
export interface PatchRow {
  id: string;
  slice_id: string;
  subject_id: string;
  instant: number;
  seq: number;
  path: string;
  op: string;
  value: string | null;
  summary: string | null;
}

export interface SliceRow {
  id: string;
  instant: number;
  title: string;
  summary: string;
  kind: string;
}

export interface IssueRow {
  subject_id: string;
  slice_id: string | null;
  patch_id: string | null;
  instant: number | null;
  label: string;
  attr: string;
  op: string | null;
  message: string;
}

/**
 * A top-level attribute of a subject: the instant of its last patch, and its snapshot (its value,
 * JSON or null when absent, after every patch at or before `snap_instant`; null columns when none).
 */
export interface LatestRow {
  top: string;
  last_instant: number;
  snap_instant: number | null;
  value: string | null;
  since_checkpoint: number | null;
}

/** What folding needs of a patch, read from the covering index `patches_fold` alone. */
export interface FoldRow {
  rowid: number;
  instant: number;
  path: string;
  op: string;
  value: string | null;
}

/** A stored live interval of a reference or text entry. */
export interface IntervalRow {
  id: number;
  attr: string;
  value: string;
  from_instant: number;
  to_instant: number | null;
}

/** The prepared statements the engine uses; created once per connection. */
export function prepareStatements(db: Database.Database) {
  const p = <R = unknown>(sql: string) => db.prepare<unknown[], R>(sql);
  return {
    getMeta: p<{ value: string }>("SELECT value FROM meta WHERE key = ?"),
    setMeta: p(
      "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    ),

    subject: p<{ id: string; type: string; name: string }>(
      "SELECT id, type, name FROM subjects WHERE id = ?",
    ),
    subjectsAll: p<{ id: string; type: string; name: string }>(
      "SELECT id, type, name FROM subjects ORDER BY type, id",
    ),
    subjectsByType: p<{ id: string; type: string; name: string }>(
      "SELECT id, type, name FROM subjects WHERE type = ? ORDER BY id",
    ),
    insertSubject: p("INSERT INTO subjects(id, type, name) VALUES (?, ?, ?)"),

    sliceById: p<SliceRow>("SELECT id, instant, title, summary, kind FROM slices WHERE id = ?"),
    sliceAt: p<SliceRow>("SELECT id, instant, title, summary, kind FROM slices WHERE instant = ?"),
    insertSlice: p("INSERT INTO slices(id, instant, title, summary, kind) VALUES (?, ?, ?, ?, ?)"),
    updateSlice: p("UPDATE slices SET instant = ?, title = ?, summary = ?, kind = ? WHERE id = ?"),
    deleteSlice: p("DELETE FROM slices WHERE id = ?"),
    maxInstant: p<{ m: number | null }>("SELECT max(instant) AS m FROM slices"),
    prevInstant: p<{ m: number | null }>("SELECT max(instant) AS m FROM slices WHERE instant < ?"),
    nextInstant: p<{ m: number | null }>("SELECT min(instant) AS m FROM slices WHERE instant > ?"),

    patchesOfSlice: p<PatchRow>("SELECT * FROM patches WHERE slice_id = ? ORDER BY seq"),
    patchCount: p<{ n: number }>("SELECT count(*) AS n FROM patches WHERE slice_id = ?"),
    insertPatch: p(
      "INSERT INTO patches(id, slice_id, subject_id, instant, seq, path, op, value, summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    deletePatchesOfSlice: p("DELETE FROM patches WHERE slice_id = ?"),
    patchesOfSubject: p<PatchRow & { title: string }>(
      "SELECT p.*, s.title AS title FROM patches p JOIN slices s ON s.id = p.slice_id WHERE p.subject_id = ? ORDER BY p.instant, p.seq",
    ),
    // From the index alone; `seq` is that of the attribute's first patch (the first row of the minimum).
    topsInOrder: p<{ top: string }>(
      `SELECT ${TOP_OF_PATH} AS top, min(instant) AS first, seq FROM patches INDEXED BY patches_fold
       WHERE subject_id = ? GROUP BY 1 ORDER BY first, seq`,
    ),
    // Folds read the covering index in (subject, attribute, time) order, never the scattered table rows.
    foldAfter: p<FoldRow>(
      `SELECT rowid, instant, path, op, value FROM patches INDEXED BY patches_fold WHERE subject_id = ? AND ${TOP_OF_PATH} = ? AND instant > ? ORDER BY instant, seq`,
    ),
    foldBetween: p<FoldRow>(
      `SELECT rowid, instant, path, op, value FROM patches INDEXED BY patches_fold WHERE subject_id = ? AND ${TOP_OF_PATH} = ? AND instant > ? AND instant <= ? ORDER BY instant, seq`,
    ),
    patchIdsAt: p<{ id: string; slice_id: string }>("SELECT id, slice_id FROM patches WHERE rowid = ?"),
    topAfter: p<PatchRow>(
      `SELECT * FROM patches INDEXED BY patches_fold WHERE subject_id = ? AND ${TOP_OF_PATH} = ? AND instant > ? ORDER BY instant, seq`,
    ),
    topLastFirst: p<PatchRow>(
      `SELECT * FROM patches INDEXED BY patches_fold WHERE subject_id = ? AND ${TOP_OF_PATH} = ? ORDER BY instant DESC, seq DESC`,
    ),

    // A subject's attributes, with the snapshot values of those whose snapshot is at or before the
    // instant given (others, maybe large, are not read).
    latest: p<LatestRow>(
      `SELECT l.top, l.last_instant, s.instant AS snap_instant, CASE WHEN s.instant <= ? THEN s.value END AS value,
       s.since_checkpoint FROM state_latest l
       LEFT JOIN snapshots s ON s.subject_id = l.subject_id AND s.top = l.top WHERE l.subject_id = ? ORDER BY l.ord`,
    ),
    latestOf: p<LatestRow>(
      `SELECT l.top, l.last_instant, s.instant AS snap_instant, CASE WHEN s.instant <= ? THEN s.value END AS value,
       s.since_checkpoint FROM state_latest l
       LEFT JOIN snapshots s ON s.subject_id = l.subject_id AND s.top = l.top WHERE l.subject_id = ? AND l.top = ?`,
    ),
    topsOf: p<{ top: string }>("SELECT top FROM state_latest WHERE subject_id = ?"),
    putLatest: db.prepare<[{ subject: string; top: string; last: number }]>(
      `INSERT INTO state_latest(subject_id, top, ord, last_instant)
       VALUES (@subject, @top, (SELECT coalesce(max(ord), 0) + 1 FROM state_latest WHERE subject_id = @subject), @last)
       ON CONFLICT(subject_id, top) DO UPDATE SET last_instant = excluded.last_instant`,
    ),
    deleteLatest: p("DELETE FROM state_latest WHERE subject_id = ? AND top = ?"),
    putSnapshot: p(
      `INSERT INTO snapshots(subject_id, top, instant, value, since_checkpoint) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(subject_id, top) DO UPDATE SET instant = excluded.instant, value = excluded.value,
       since_checkpoint = excluded.since_checkpoint`,
    ),
    deleteSnapshot: p("DELETE FROM snapshots WHERE subject_id = ? AND top = ?"),
    // Where to start re-deriving: instants first, then only the value chosen (values may be large).
    snapshotBefore: p<{ instant: number; since_checkpoint: number }>(
      "SELECT instant, since_checkpoint FROM snapshots WHERE subject_id = ? AND top = ? AND instant < ?",
    ),
    snapshotValue: p<{ value: string | null }>(
      "SELECT value FROM snapshots WHERE subject_id = ? AND top = ?",
    ),
    checkpointBefore: p<{ instant: number }>(
      "SELECT instant FROM checkpoints WHERE subject_id = ? AND top = ? AND instant < ? ORDER BY instant DESC LIMIT 1",
    ),
    checkpointValue: p<{ value: string | null }>(
      "SELECT value FROM checkpoints WHERE subject_id = ? AND top = ? AND instant = ?",
    ),
    checkpointAtOrBefore: p<{ instant: number }>(
      "SELECT instant FROM checkpoints WHERE subject_id = ? AND top = ? AND instant <= ? ORDER BY instant DESC LIMIT 1",
    ),
    deleteCheckpointsFrom: p("DELETE FROM checkpoints WHERE subject_id = ? AND top = ? AND instant >= ?"),
    insertCheckpoint: p("INSERT INTO checkpoints(subject_id, top, instant, value) VALUES (?, ?, ?, ?)"),

    issuesOfSubject: p<IssueRow>("SELECT * FROM issues WHERE subject_id = ? ORDER BY instant, id"),
    issuesOfSlice: p<IssueRow>("SELECT * FROM issues WHERE slice_id = ? ORDER BY id"),
    issuesOfPatch: p<IssueRow>("SELECT * FROM issues WHERE patch_id = ?"),
    issuesAll: p<IssueRow>("SELECT * FROM issues ORDER BY subject_id, instant, id"),
    // E2 issues have no instant, so these two never touch each other's rows.
    deleteIssuesFrom: p("DELETE FROM issues WHERE subject_id = ? AND top = ? AND instant >= ?"),
    deleteE2: p("DELETE FROM issues WHERE subject_id = ? AND top = ? AND label = 'E2'"),
    insertIssue: p(
      "INSERT INTO issues(subject_id, top, slice_id, patch_id, instant, label, attr, op, message) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ),

    // Intervals that started before an instant and were still live at it (reopened, then maybe closed again).
    reopenRefsFrom: p(
      "UPDATE refs SET to_instant = NULL WHERE subject_id = ? AND top = ? AND to_instant >= ? AND from_instant < ?",
    ),
    openRefsBefore: p<{ id: number; attr: string; target: string }>(
      "SELECT id, attr, target FROM refs WHERE subject_id = ? AND top = ? AND to_instant IS NULL AND from_instant < ?",
    ),
    // Intervals that start at or after an instant (re-derived, reusing rows that only moved).
    refsFrom: p<IntervalRow>(
      "SELECT id, attr, target AS value, from_instant, to_instant FROM refs WHERE subject_id = ? AND top = ? AND from_instant >= ?",
    ),
    closeRef: p("UPDATE refs SET to_instant = ? WHERE id = ?"),
    // Rows of one attribute that moved or went away, in bulk: [[id, attr], …] and [id, …].
    moveRefs: p("UPDATE refs SET attr = j.value ->> 1 FROM json_each(?) j WHERE refs.id = j.value ->> 0"),
    deleteRefs: p("DELETE FROM refs WHERE id IN (SELECT value FROM json_each(?))"),
    refsToLatest: p<{ subject_id: string; attr: string }>(
      "SELECT subject_id, attr FROM refs WHERE target = ? AND to_instant IS NULL ORDER BY subject_id, attr",
    ),
    refsToAt: p<{ subject_id: string; attr: string }>(
      "SELECT subject_id, attr FROM refs WHERE target = ? AND from_instant <= ? AND (to_instant IS NULL OR to_instant > ?) ORDER BY subject_id, attr",
    ),
    referrersLatest: p<{ subject_id: string }>(
      "SELECT DISTINCT subject_id FROM refs WHERE target = ? AND to_instant IS NULL",
    ),

    reopenTextsFrom: p(
      "UPDATE texts SET to_instant = NULL WHERE subject_id = ? AND top = ? AND to_instant >= ? AND from_instant < ?",
    ),
    openTextsBefore: p<{ id: number; attr: string; body: string }>(
      "SELECT t.id, t.attr, b.body FROM texts t JOIN text_bodies b ON b.id = t.body_id WHERE t.subject_id = ? AND t.top = ? AND t.to_instant IS NULL AND t.from_instant < ?",
    ),
    textsFrom: p<IntervalRow>(
      "SELECT t.id, t.attr, b.body AS value, t.from_instant, t.to_instant FROM texts t JOIN text_bodies b ON b.id = t.body_id WHERE t.subject_id = ? AND t.top = ? AND t.from_instant >= ?",
    ),
    // Entries are stored in bulk, one statement for all of one attribute's: bodies new to the
    // database first, with their index rows, then the entries, which find their body by its text.
    insertMissingBodies: p<{ id: number; body: string }>(
      `INSERT INTO text_bodies(body) SELECT DISTINCT value FROM json_each(?)
       WHERE value NOT IN (SELECT body FROM text_bodies) RETURNING id, body`,
    ),
    indexBodies: p("INSERT INTO text_fts(rowid, body) SELECT value ->> 0, value ->> 1 FROM json_each(?)"),
    indexBodyWords: p(
      "INSERT INTO text_words(rowid, body) SELECT value ->> 0, value ->> 1 FROM json_each(?)",
    ),
    insertTexts: p(
      `INSERT INTO texts(subject_id, top, attr, body_id, from_instant, to_instant)
       SELECT ?, ?, value ->> 0, (SELECT id FROM text_bodies WHERE body = value ->> 1), value ->> 2, value ->> 3
       FROM json_each(?)`,
    ),
    insertRefs: p(
      `INSERT INTO refs(subject_id, top, attr, target, from_instant, to_instant)
       SELECT ?, ?, value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?)`,
    ),
    closeText: p("UPDATE texts SET to_instant = ? WHERE id = ?"),
    moveTexts: p("UPDATE texts SET attr = j.value ->> 1 FROM json_each(?) j WHERE texts.id = j.value ->> 0"),
    deleteTexts: p("DELETE FROM texts WHERE id IN (SELECT value FROM json_each(?))"),
  };
}

export type Statements = ReturnType<typeof prepareStatements>;
