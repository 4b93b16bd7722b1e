import type Database from "better-sqlite3";
import { z } from "zod";
import { NbError } from "./errors.js";

/**
 * A row-level change log of one SQLite database: every row a recorded change touches (cascades
 * included) is logged, in the change's own transaction, with its before and after images.
 *
 * Capture is by TEMP triggers (they live on one connection only, so other programs writing the
 * file are never affected) that copy each touched row into a temp table while a change id is
 * armed; before the commit the copies are folded to one row per touched row (first before image,
 * last after image) into the database's own log table. better-sqlite3 has no session extension,
 * and triggers see what the statements cannot report: FK cascades, renumbered siblings.
 */
export interface RowLogSpec {
  /** The table the log is kept in (see rowLogDdl), in the same database. */
  readonly logTable: string;
  /** The tables whose rows are logged. */
  readonly tables: readonly string[];
}

/** The log table's DDL, for the database's migration. */
export function rowLogDdl(logTable: string): string {
  return `CREATE TABLE IF NOT EXISTS ${logTable} (
  id INTEGER PRIMARY KEY,
  change_id TEXT NOT NULL,
  tbl TEXT NOT NULL,
  pk TEXT NOT NULL,
  before TEXT,
  after TEXT
);
CREATE INDEX IF NOT EXISTS ${logTable}_change ON ${logTable}(change_id, id);`;
}

const Key = z.array(z.union([z.string(), z.number(), z.null()]));
const Image = z.record(z.string(), z.unknown()).nullable();

/** One logged row: its table, primary key values, and its images before and after (null: absent). */
const RowChangeSchema = z
  .object({ seq: z.number().int(), table: z.string(), key: Key, before: Image, after: Image })
  .strict();
export type RowChange = z.infer<typeof RowChangeSchema>;

/** Change ids are quoted into SQL text that may cross to another process (execute_sql's). */
export const ChangeIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,100}$/, "a change id is 1–100 letters, digits, or . _ : -");

type Db = Database.Database;

interface TableShape {
  name: string;
  columns: string[];
  pk: string[];
}

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;
const lit = (text: string) => `'${text.replace(/'/g, "''")}'`;

function shapeOf(db: Db, table: string): TableShape {
  const info = db.prepare(`SELECT name, pk FROM pragma_table_info(?) ORDER BY cid`).all(table) as {
    name: string;
    pk: number;
  }[];
  if (!info.length) throw new NbError("internal", `row log: no table ${table}`);
  const pk = info
    .filter((c) => c.pk > 0)
    .sort((a, b) => a.pk - b.pk)
    .map((c) => c.name);
  if (!pk.length) throw new NbError("internal", `row log: table ${table} has no primary key`);
  return { name: table, columns: info.map((c) => c.name), pk };
}

const imageSql = (s: TableShape, ref: string) =>
  `json_object(${s.columns.map((c) => `${lit(c)}, ${ref}.${q(c)}`).join(", ")})`;
const keySql = (s: TableShape, ref: string) => `json_array(${s.pk.map((c) => `${ref}.${q(c)}`).join(", ")})`;

/** The TEMP triggers that copy touched rows of one table while a change id is armed. */
function triggersOf(s: TableShape, i: number): string {
  const on = `ON main.${q(s.name)} WHEN EXISTS (SELECT 1 FROM temp.nb_row_change) BEGIN`;
  const raw = "INSERT INTO temp.nb_row_raw(tbl, pk, before, after)";
  const t = lit(s.name);
  const samePk = `${keySql(s, "OLD")} IS ${keySql(s, "NEW")}`;
  return `
CREATE TEMP TRIGGER IF NOT EXISTS nb_rowlog_${i}_i AFTER INSERT ${on}
  ${raw} VALUES (${t}, ${keySql(s, "NEW")}, NULL, ${imageSql(s, "NEW")}); END;
CREATE TEMP TRIGGER IF NOT EXISTS nb_rowlog_${i}_u AFTER UPDATE ${on}
  ${raw} SELECT ${t}, ${keySql(s, "OLD")}, ${imageSql(s, "OLD")}, CASE WHEN ${samePk} THEN ${imageSql(s, "NEW")} END;
  ${raw} SELECT ${t}, ${keySql(s, "NEW")}, NULL, ${imageSql(s, "NEW")} WHERE NOT (${samePk}); END;
CREATE TEMP TRIGGER IF NOT EXISTS nb_rowlog_${i}_d AFTER DELETE ${on}
  ${raw} VALUES (${t}, ${keySql(s, "OLD")}, ${imageSql(s, "OLD")}, NULL); END;`;
}

/**
 * The SQL of a change's row log on `db`'s schema, for any connection to the same file (execute_sql's
 * process runs it too): `install` creates the temp tables and triggers (run it when the temp schema
 * has no `marker`: a rolled-back transaction takes them away), `open` arms logging under the change
 * inside its transaction, `close` flushes the copies into the log and disarms, before its commit.
 */
export interface RowLogScript {
  install: string;
  marker: string;
  open: string;
  close: string;
}

const installs = new WeakMap<Db, Map<string, { sql: string; marker: string }>>();

function installOf(db: Db, spec: RowLogSpec): { sql: string; marker: string } {
  let byLog = installs.get(db);
  if (!byLog) {
    byLog = new Map();
    installs.set(db, byLog);
  }
  let install = byLog.get(spec.logTable);
  if (install === undefined) {
    install = {
      sql: `CREATE TEMP TABLE IF NOT EXISTS nb_row_change (id TEXT NOT NULL);
CREATE TEMP TABLE IF NOT EXISTS nb_row_raw (seq INTEGER PRIMARY KEY, tbl TEXT NOT NULL, pk TEXT NOT NULL, before TEXT, after TEXT);
CREATE INDEX IF NOT EXISTS temp.nb_row_raw_key ON nb_row_raw(tbl, pk, seq);
${spec.tables.map((t, i) => triggersOf(shapeOf(db, t), i)).join("\n")}`,
      marker: `nb_rowlog_${spec.tables.length - 1}_d`,
    };
    byLog.set(spec.logTable, install);
  }
  return install;
}

/** The row-log SQL of one change on `db`'s schema (see RowLogScript). */
export function rowLogScript(db: Db, spec: RowLogSpec, changeId: string): RowLogScript {
  const id = ChangeIdSchema.parse(changeId);
  const raw = "temp.nb_row_raw";
  const install = installOf(db, spec);
  return {
    install: install.sql,
    marker: install.marker,
    open: `DELETE FROM temp.nb_row_raw; DELETE FROM temp.nb_row_change;
INSERT INTO temp.nb_row_change(id) VALUES (${lit(id)});`,
    close: `INSERT INTO main.${spec.logTable}(change_id, tbl, pk, before, after)
SELECT ${lit(id)}, g.tbl, g.pk, g.before, g.after FROM (
  SELECT r.tbl, r.pk, min(r.seq) AS first,
    (SELECT f.before FROM ${raw} f WHERE f.tbl = r.tbl AND f.pk = r.pk ORDER BY f.seq LIMIT 1) AS before,
    (SELECT l.after FROM ${raw} l WHERE l.tbl = r.tbl AND l.pk = r.pk ORDER BY l.seq DESC LIMIT 1) AS after
  FROM ${raw} r GROUP BY r.tbl, r.pk) g
WHERE g.before IS NOT g.after ORDER BY g.first;
DELETE FROM temp.nb_row_raw; DELETE FROM temp.nb_row_change;`,
  };
}

/** The statements one connection arms and flushes its own changes with (prepared once; text parsing is most of the cost). */
interface LocalLog {
  installed: Database.Statement;
  clear: Database.Statement[];
  armId: Database.Statement;
  flush: Database.Statement;
}

const locals = new WeakMap<Db, Map<string, LocalLog>>();

function localLog(db: Db, spec: RowLogSpec): LocalLog {
  let byLog = locals.get(db);
  if (!byLog) {
    byLog = new Map();
    locals.set(db, byLog);
  }
  let log = byLog.get(spec.logTable);
  if (!log) {
    const install = installOf(db, spec);
    db.exec(install.sql);
    const raw = "temp.nb_row_raw";
    log = {
      installed: db.prepare("SELECT 1 FROM temp.sqlite_master WHERE name = ?").bind(install.marker),
      clear: [db.prepare("DELETE FROM temp.nb_row_raw"), db.prepare("DELETE FROM temp.nb_row_change")],
      armId: db.prepare("INSERT INTO temp.nb_row_change(id) VALUES (?)"),
      flush: db.prepare(`INSERT INTO main.${spec.logTable}(change_id, tbl, pk, before, after)
SELECT ?, g.tbl, g.pk, g.before, g.after FROM (
  SELECT r.tbl, r.pk, min(r.seq) AS first,
    (SELECT f.before FROM ${raw} f WHERE f.tbl = r.tbl AND f.pk = r.pk ORDER BY f.seq LIMIT 1) AS before,
    (SELECT l.after FROM ${raw} l WHERE l.tbl = r.tbl AND l.pk = r.pk ORDER BY l.seq DESC LIMIT 1) AS after
  FROM ${raw} r GROUP BY r.tbl, r.pk) g
WHERE g.before IS NOT g.after ORDER BY g.first`),
    };
    byLog.set(spec.logTable, log);
  }
  // A rolled-back transaction that installed the triggers took them away again.
  if (!log.installed.get()) db.exec(installOf(db, spec).sql);
  return log;
}

/**
 * Run `fn` as one transaction of `db`; with a change id, every row it touches is logged under
 * that id in the same transaction (a throw rolls the log back with the change).
 */
export function withRowLog<T>(db: Db, spec: RowLogSpec, changeId: string | undefined, fn: () => T): T {
  if (changeId === undefined) return db.transaction(fn)();
  return db.transaction(() => inRowLog(db, spec, changeId, fn))();
}

/** Run `fn` inside the caller's open transaction, logging every row it touches under `changeId`. */
export function inRowLog<T>(db: Db, spec: RowLogSpec, changeId: string, fn: () => T): T {
  if (!db.inTransaction) throw new NbError("internal", "row log: inRowLog needs an open transaction");
  const id = ChangeIdSchema.parse(changeId);
  const log = localLog(db, spec);
  for (const c of log.clear) c.run();
  log.armId.run(id);
  const value = fn();
  log.flush.run(id);
  for (const c of log.clear) c.run();
  return value;
}

interface LogRow {
  id: number;
  tbl: string;
  pk: string;
  before: string | null;
  after: string | null;
}

function toChange(r: LogRow): RowChange {
  return {
    seq: r.id,
    table: r.tbl,
    key: JSON.parse(r.pk),
    before: r.before === null ? null : JSON.parse(r.before),
    after: r.after === null ? null : JSON.parse(r.after),
  };
}

/** The rows a change touched, in the order it first touched them (empty: it logged none here). */
export function rowChanges(db: Db, spec: RowLogSpec, changeId: string): RowChange[] {
  return (
    db
      .prepare(`SELECT id, tbl, pk, before, after FROM ${spec.logTable} WHERE change_id = ? ORDER BY id`)
      .all(changeId) as LogRow[]
  ).map(toChange);
}

/** True when the log holds rows of this change. */
export function hasRowChanges(db: Db, spec: RowLogSpec, changeId: string): boolean {
  return db.prepare(`SELECT 1 FROM ${spec.logTable} WHERE change_id = ? LIMIT 1`).get(changeId) !== undefined;
}

/** A row as it is now, as the log images it (JSON text, null when absent). */
function currentImage(db: Db, s: TableShape, pk: string): string | null {
  const where = s.pk.map((c, i) => `${q(c)} IS json_extract(?, '$[${i}]')`).join(" AND ");
  const row = db
    .prepare(`SELECT ${imageSql(s, q(s.name))} AS img FROM ${q(s.name)} WHERE ${where}`)
    .get(...s.pk.map(() => pk)) as { img: string } | undefined;
  return row ? row.img : null;
}

/** Put one row back to an image (null: remove it). */
function restoreRow(db: Db, s: TableShape, pk: string, image: string | null, present: boolean): void {
  const where = s.pk.map((c, i) => `${q(c)} IS json_extract(?, '$[${i}]')`).join(" AND ");
  const keyArgs = s.pk.map(() => pk);
  const value = (c: string) => `json_extract(?, ${lit(`$."${c}"`)})`;
  if (image === null) {
    db.prepare(`DELETE FROM ${q(s.name)} WHERE ${where}`).run(...keyArgs);
  } else if (present) {
    const sets = s.columns.map((c) => `${q(c)} = ${value(c)}`).join(", ");
    db.prepare(`UPDATE ${q(s.name)} SET ${sets} WHERE ${where}`).run(
      ...s.columns.map(() => image),
      ...keyArgs,
    );
  } else {
    const cols = s.columns.map(q).join(", ");
    db.prepare(`INSERT INTO ${q(s.name)} (${cols}) VALUES (${s.columns.map(value).join(", ")})`).run(
      ...s.columns.map(() => image),
    );
  }
}

/** A row a revert found changed since the change it would undo: what the change left, and what is there now. */
const RowConflictSchema = z.object({ table: z.string(), key: Key, expected: Image, current: Image }).strict();
export type RowConflict = z.infer<typeof RowConflictSchema>;

/** A referential problem a revert would leave; named by the domain (`scene 5`) in its message. */
export interface Dangling {
  table: string;
  key: unknown[];
  column: string;
  parent: string;
  parentKey: unknown;
}

/** What a domain adds to a revert: how it names rows, and the checks it re-runs before the commit. */
export interface RevertHooks {
  /** A row as a person names it (`scene 5`), for messages. */
  name(table: string, key: unknown[]): string;
  /** The domain's checks on what the revert restored, inside its transaction; throw to refuse. */
  check?(restored: RowChange[]): void;
}

/** Rows of other tables that point (by foreign key) at the row of `s` with this image. */
function referrers(db: Db, spec: RowLogSpec, parent: TableShape, image: Record<string, unknown>): Dangling[] {
  const out: Dangling[] = [];
  for (const child of spec.tables) {
    const fks = db
      .prepare(`SELECT "table" AS parent, "from" AS col, "to" AS ref FROM pragma_foreign_key_list(?)`)
      .all(child) as { parent: string; col: string; ref: string | null }[];
    for (const fk of fks.filter((f) => f.parent === parent.name)) {
      const refCol = fk.ref ?? parent.pk[0];
      const cs = shapeOf(db, child);
      const rows = db
        .prepare(`SELECT ${keySql(cs, q(child))} AS pk FROM ${q(child)} WHERE ${q(fk.col)} = ?`)
        .all(image[refCol] as never) as { pk: string }[];
      for (const r of rows)
        out.push({
          table: child,
          key: JSON.parse(r.pk),
          column: fk.col,
          parent: parent.name,
          parentKey: image[refCol],
        });
    }
  }
  return out;
}

/**
 * Undo logged changes (newest first) in one transaction, logging the revert under `newChangeId`
 * (so it can itself be reverted). Refused with `conflict`, changing nothing, when a row changed
 * since (both versions in `details.conflicts`) or when the result would break referential integrity
 * (a row left pointing at one that is gone, in `details.dangling`); the message names the change.
 * Each change is checked against the rows as the ones before it left them. Returns the revert's rows.
 */
export function revertRows(
  db: Db,
  spec: RowLogSpec,
  changeIds: string | readonly string[],
  newChangeId: string,
  hooks: RevertHooks,
): RowChange[] {
  const ids = typeof changeIds === "string" ? [changeIds] : [...changeIds];
  const select = db.prepare(
    `SELECT id, tbl, pk, before, after FROM ${spec.logTable} WHERE change_id = ? ORDER BY id`,
  );
  const parts = ids.map((changeId) => {
    const logged = select.all(changeId) as LogRow[];
    if (!logged.length) throw new NbError("not_found", `No rows are recorded for change ${changeId}`);
    return { changeId, logged };
  });
  const shapes = new Map(spec.tables.map((t) => [t, shapeOf(db, t)]));
  const shape = (t: string) => {
    const s = shapes.get(t);
    if (!s) throw new NbError("internal", `row log: a change names table ${t}, which is not logged`);
    return s;
  };
  const named = ids.length === 1 ? `change ${ids[0]}` : `changes ${ids.join(", ")}`;
  const newId = ChangeIdSchema.parse(newChangeId);
  const rowKey = (tbl: string, pk: string) => `${tbl}\u0000${pk}`;
  const all = parts.flatMap((p) => p.logged);
  const inChange = new Set(all.map((r) => rowKey(r.tbl, r.pk)));
  const doomed = new Set(all.filter((r) => r.before === null).map((r) => rowKey(r.tbl, r.pk)));
  return db.transaction(() => {
    db.pragma("defer_foreign_keys = ON");
    const log = localLog(db, spec);
    for (const c of log.clear) c.run();
    log.armId.run(newId);
    for (const { changeId, logged } of parts)
      undoOne(db, spec, shape, hooks, changeId, logged, doomed, inChange);
    const broken = db.pragma("foreign_key_check") as {
      table: string;
      rowid: number;
      parent: string;
      fkid: number;
    }[];
    if (broken.length)
      refuseDangling(
        named,
        broken.map((b) => danglingOf(db, b)),
        hooks,
      );
    const raw = db.prepare("SELECT DISTINCT tbl, pk FROM temp.nb_row_raw").all() as {
      tbl: string;
      pk: string;
    }[];
    const extra = raw.filter((t) => !inChange.has(rowKey(t.tbl, t.pk)));
    if (extra.length) {
      throw new NbError(
        "conflict",
        `Cannot revert ${named}: it would also change ${extra.map((e) => hooks.name(e.tbl, JSON.parse(e.pk))).join(", ")}; nothing was changed.`,
        { details: { also: extra.map((e) => ({ table: e.tbl, key: JSON.parse(e.pk) })) } },
      );
    }
    const restored = all.map((r) => toChange({ ...r, before: r.after, after: r.before }));
    hooks.check?.(restored);
    log.flush.run(newId);
    for (const c of log.clear) c.run();
    return rowChanges(db, spec, newId);
  })();
}

/** Take one change's rows back inside the revert's transaction, refusing a conflict or a broken link. */
function undoOne(
  db: Db,
  spec: RowLogSpec,
  shape: (t: string) => TableShape,
  hooks: RevertHooks,
  changeId: string,
  logged: readonly LogRow[],
  doomed: ReadonlySet<string>,
  inChange: ReadonlySet<string>,
): void {
  const conflicts: RowConflict[] = [];
  for (const r of logged) {
    const now = currentImage(db, shape(r.tbl), r.pk);
    if (!sameImage(now, r.after))
      conflicts.push({ ...pick(toChange(r)), current: now === null ? null : JSON.parse(now) });
  }
  if (conflicts.length) {
    throw new NbError(
      "conflict",
      `Cannot revert change ${changeId}: ${conflicts.map((c) => hooks.name(c.table, c.key)).join(", ")} changed since; nothing was changed.\n${conflicts.map(conflictText(hooks)).join("\n")}`,
      { details: { change: changeId, conflicts } },
    );
  }
  const dangling = logged
    .filter((r) => r.before === null && r.after !== null)
    .flatMap((r) => referrers(db, spec, shape(r.tbl), JSON.parse(r.after as string)))
    .filter((d) => {
      const k = `${d.table}\u0000${JSON.stringify(d.key)}`;
      return !doomed.has(k) && !inChange.has(k);
    });
  if (dangling.length) refuseDangling(`change ${changeId}`, dangling, hooks);
  for (const r of [...logged].reverse()) {
    const s = shape(r.tbl);
    try {
      restoreRow(db, s, r.pk, r.before, currentImage(db, s, r.pk) !== null);
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      if (typeof code !== "string" || !code.startsWith("SQLITE_CONSTRAINT")) throw e;
      throw new NbError(
        "conflict",
        `Cannot revert change ${changeId}: putting back ${hooks.name(r.tbl, JSON.parse(r.pk))} breaks a rule of the database as it is now (${(e as Error).message}); nothing was changed.`,
        { details: { change: changeId } },
      );
    }
  }
}

function pick(c: RowChange): Omit<RowConflict, "current"> {
  return { table: c.table, key: c.key, expected: c.after };
}

function sameImage(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return a === b;
  return a === b || JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));
}

function conflictText(hooks: RevertHooks): (c: RowConflict) => string {
  return (c) =>
    `${hooks.name(c.table, c.key)}:\n  the change left: ${JSON.stringify(c.expected)}\n  now:             ${JSON.stringify(c.current)}`;
}

/** A foreign_key_check finding as a Dangling row. */
function danglingOf(db: Db, b: { table: string; rowid: number; parent: string; fkid: number }): Dangling {
  const s = shapeOf(db, b.table);
  const fk = (
    db.prepare(`SELECT id, "from" AS col, "to" AS ref FROM pragma_foreign_key_list(?)`).all(b.table) as {
      id: number;
      col: string;
      ref: string | null;
    }[]
  ).find((f) => f.id === b.fkid);
  const row = db
    .prepare(
      `SELECT ${keySql(s, q(b.table))} AS pk, ${fk ? q(fk.col) : "NULL"} AS v FROM ${q(b.table)} WHERE rowid = ?`,
    )
    .get(b.rowid) as { pk: string; v: unknown } | undefined;
  return {
    table: b.table,
    key: row ? JSON.parse(row.pk) : [b.rowid],
    column: fk?.col ?? "",
    parent: b.parent,
    parentKey: row?.v ?? null,
  };
}

/** Refuse a revert (`what`: "change X" or "changes X, Y") that would leave rows pointing at none. */
function refuseDangling(what: string, dangling: Dangling[], hooks: RevertHooks): never {
  const lines = dangling.map(
    (d) =>
      `${hooks.name(d.table, d.key)} would point (${d.column}) at ${hooks.name(d.parent, [d.parentKey])}, which would be gone`,
  );
  throw new NbError(
    "conflict",
    `Cannot revert ${what}: it would break the links between rows; nothing was changed.\n${lines.join("\n")}`,
    { details: { dangling } },
  );
}
