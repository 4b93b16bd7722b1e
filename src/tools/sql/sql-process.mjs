// The SQL process: runs execute_sql statements against exactly one project.sqlite, given as the only
// argument. It is a separate process, not a worker thread, because a thread busy inside SQLite cannot
// be stopped (Worker.terminate waits for the native call to return); a process can be killed at once.
// Plain JavaScript so it starts without a TypeScript loader, under vitest and ./bin/nbook alike.
import { createHash } from "node:crypto";
import Database from "better-sqlite3";

const file = process.argv[2];

// Bytecode operations that only statements execute_sql refuses would contain: transactions, schema
// changes, VACUUM, ATTACH/DETACH (Expire), ANALYZE, journal and checkpoint control, virtual table DDL.
const REFUSED_OPCODES = new Set([
  "AutoCommit",
  "Savepoint",
  "Vacuum",
  "IncrVacuum",
  "ParseSchema",
  "CreateBtree",
  "Destroy",
  "DropTable",
  "DropIndex",
  "DropTrigger",
  "SqlExec",
  "LoadAnalysis",
  "Expire",
  "JournalMode",
  "Checkpoint",
  "VBegin",
  "VCreate",
  "VDestroy",
  "VRename",
]);

// SQL functions that reach outside project.sqlite.
const REFUSED_FUNCTIONS = new Set([
  "load_extension",
  "sqlite_attach",
  "sqlite_detach",
  "readfile",
  "writefile",
  "edit",
  "fts3_tokenizer",
]);

// Operations naming a database by index (p1 or p3): only main (0) and temp (1) exist without ATTACH.
const DB_INDEX_OPERAND = {
  Transaction: "p1",
  OpenRead: "p3",
  OpenWrite: "p3",
  ReadCookie: "p1",
  SetCookie: "p1",
};

class Refusal extends Error {
  constructor(code, message, fields) {
    super(message);
    this.info = { code, message, ...(fields ? { fields } : {}) };
  }
}

let connections = null;

/** The read-write and read-only connections, opened once. */
function open() {
  if (connections) return connections;
  const rw = new Database(file, { fileMustExist: true, timeout: 1000 });
  rw.pragma("foreign_keys = ON");
  rw.pragma("trusted_schema = OFF");
  const ro = new Database(file, { fileMustExist: true, readonly: true, timeout: 1000 });
  ro.pragma("foreign_keys = ON");
  ro.pragma("trusted_schema = OFF");
  connections = { rw, ro };
  return connections;
}

// NeuroBook's own tables in project.sqlite (its row log of recorded changes): readable, never writable here.
const PROTECTED_TABLES = ["history_row"];

/** The b-tree root pages of the protected tables and their indexes in main. */
function protectedRoots(db) {
  return new Set(
    db
      .prepare(
        `SELECT rootpage FROM sqlite_schema WHERE tbl_name IN (${PROTECTED_TABLES.map(() => "?").join(", ")})`,
      )
      .pluck()
      .all(...PROTECTED_TABLES),
  );
}

/** True when an operation writes a protected b-tree of main (OpenWrite: p2 root, p3 db; Clear: p1 root, p2 db). */
function writesProtected(op, roots) {
  if (op.opcode === "OpenWrite") return Number(op.p3) === 0 && roots.has(Number(op.p2));
  if (op.opcode === "Clear") return Number(op.p2) === 0 && roots.has(Number(op.p1));
  return false;
}

/** Refuse a statement whose compiled program does something execute_sql does not allow. */
function checkBytecode(db, req) {
  const roots = protectedRoots(db);
  // EXPLAIN lists the statement's own program first, then each trigger's (addresses restart at 0):
  // only the statement's own writes are checked against the protected tables, since NeuroBook's
  // row-log triggers write only temp tables and the log is filled by NeuroBook, not the statement.
  let own = true;
  let last = -1;
  for (const op of db.prepare(`EXPLAIN ${req.sql}`).all(...bindArgs(req.params))) {
    if (Number(op.addr) <= last) own = false;
    last = Number(op.addr);
    if (own && writesProtected(op, roots)) {
      throw new Refusal(
        "not_allowed",
        "history_row is NeuroBook's log of recorded changes: it can be read, not written",
      );
    }
    if (REFUSED_OPCODES.has(op.opcode)) {
      throw new Refusal("not_allowed", `This statement is not allowed (it would run ${op.opcode})`);
    }
    const operand = DB_INDEX_OPERAND[op.opcode];
    if (operand && Number(op[operand]) > 1) {
      throw new Refusal("not_allowed", "Only this project's project.sqlite is reachable");
    }
    const fn = typeof op.p4 === "string" ? /^([A-Za-z_][A-Za-z0-9_]*)\(-?\d+\)$/.exec(op.p4) : null;
    if (fn && REFUSED_FUNCTIONS.has(fn[1].toLowerCase())) {
      throw new Refusal("not_allowed", `The SQL function ${fn[1]} is not allowed`);
    }
  }
}

/**
 * Prepare on the read-write connection and decide, from SQLite, whether the statement writes.
 * better-sqlite3 refuses a text whose tail after the first statement holds more than comments.
 */
function inspect(req) {
  const { rw } = open();
  const stmt = rw.prepare(req.sql);
  // EXPLAIN never runs the statement it explains, so it reads whatever that statement is.
  if (req.command === "EXPLAIN") return { stmt, write: false };
  checkBytecode(rw, req);
  const write = !stmt.readonly;
  if (write && (req.command === "SELECT" || req.command === "VALUES")) {
    throw new Refusal("not_allowed", `This ${req.command} statement would write`);
  }
  return { stmt, write };
}

// Marks a cell cut at the request's maxCellChars.
const CUT = "…";

/**
 * One value as it crosses to the parent: safe integers as numbers, blobs as x'hex', texts longer
 * than `max` characters cut (counted in `cut.n`).
 */
function cell(v, max, cut) {
  if (typeof v === "bigint") {
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(v)
      : String(v);
  }
  if (v instanceof Uint8Array) {
    const bytes = Math.floor(max / 2);
    if (v.length > bytes) cut.n++;
    return `x'${Buffer.from(v.subarray(0, bytes)).toString("hex")}${v.length > bytes ? CUT : ""}'`;
  }
  if (typeof v === "string" && v.length > max) {
    cut.n++;
    return `${v.slice(0, max)}${CUT}`;
  }
  return v;
}

/**
 * Take at most `req.maxRows` rows, and no further row once the texts taken hold `req.maxChars`
 * characters, converting each cell; `truncated` says rows were left out, `cutCells` how many cells
 * were cut. This keeps a result small enough for a model and a session log.
 */
function collect(source, req) {
  const rows = [];
  const cut = { n: 0 };
  let chars = 0;
  for (const r of source) {
    if (rows.length === req.maxRows || chars >= req.maxChars)
      return { rows, truncated: true, cutCells: cut.n };
    const row = r.map((v) => cell(v, req.maxCellChars, cut));
    for (const c of row) if (typeof c === "string") chars += c.length;
    rows.push(row);
  }
  return { rows, truncated: false, cutCells: cut.n };
}

function bindValue(v) {
  return typeof v === "boolean" ? (v ? 1 : 0) : v;
}

function bindArgs(params) {
  if (params === undefined) return [];
  if (Array.isArray(params)) return params.map(bindValue);
  const named = {};
  for (const [k, v] of Object.entries(params)) named[k.replace(/^[:@$]/, "")] = bindValue(v);
  return [named];
}

/** Run a prepared statement: rows (capped) for statements that return data, else the change count. */
function execute(db, stmt, req, write) {
  const args = bindArgs(req.params);
  if (!stmt.reader) {
    const info = stmt.run(...args);
    return { columns: [], rows: [], truncated: false, cutCells: 0, changes: info.changes };
  }
  stmt.raw(true).safeIntegers(true);
  const columns = stmt.columns().map((c) => c.name);
  if (write) {
    // A write with RETURNING must run to the end; only the returned rows are capped.
    const result = collect(stmt.all(...args), req);
    const changes = db.prepare("SELECT changes()").pluck().get();
    return { columns, ...result, changes };
  }
  return { columns, ...collect(stmt.iterate(...args), req) };
}

const quoteId = (name) => `"${name.replace(/"/g, '""')}"`;
const quoteText = (text) => `'${text.replace(/'/g, "''")}'`;

/**
 * Inside the open transaction, install temporary triggers that log each row a statement touches —
 * its table, the operation and, for updates and deletes, the row's key (rowid, or the primary key of
 * a WITHOUT ROWID table) — cascades included. A rollback removes them; `unwatch` before a commit.
 */
function watch(db) {
  db.exec("CREATE TEMP TABLE nb_touched (tbl TEXT NOT NULL, op TEXT NOT NULL, key TEXT)");
  const tables = db
    .prepare(
      "SELECT name, wr FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite%' AND name NOT IN (SELECT value FROM json_each(?))",
    )
    .all(JSON.stringify(PROTECTED_TABLES));
  tables.forEach(({ name, wr }, i) => {
    const pk = db.prepare("SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk").pluck().all(name);
    const key = (row) =>
      wr ? `json_array(${pk.map((c) => `${row}.${quoteId(c)}`).join(", ")})` : `${row}.rowid`;
    const log = (op, keyExpr) =>
      `INSERT INTO temp.nb_touched VALUES (${quoteText(name)}, '${op}', ${keyExpr});`;
    const on = `ON main.${quoteId(name)} BEGIN`;
    db.exec(`CREATE TEMP TRIGGER nb_touch_${i}_i AFTER INSERT ${on} ${log("insert", "NULL")} END;
      CREATE TEMP TRIGGER nb_touch_${i}_u AFTER UPDATE ${on} ${log("update", key("OLD"))} END;
      CREATE TEMP TRIGGER nb_touch_${i}_d AFTER DELETE ${on} ${log("delete", key("OLD"))} END;`);
  });
}

/** Drop what `watch` installed (before a commit, which would otherwise keep it). */
function unwatch(db) {
  for (const name of db
    .prepare("SELECT name FROM temp.sqlite_master WHERE type = 'trigger' AND name LIKE 'nb_touch_%'")
    .pluck()
    .all())
    db.exec(`DROP TRIGGER temp.${quoteId(name)}`);
  db.exec("DROP TABLE temp.nb_touched");
}

/**
 * What a watched statement changed: the row count SQLite reports and a sha256 of the rows it
 * touched (inserts by table, updates and deletes by table and key). An approval is pinned to this.
 */
function touched(db, changes) {
  const hash = createHash("sha256");
  for (const r of db.prepare("SELECT tbl, op, key FROM temp.nb_touched ORDER BY tbl, op, key").raw().all())
    hash.update(`${r.join("\t")}\n`);
  return { changes, rows: hash.digest("hex") };
}

function run(req) {
  const { stmt, write } = inspect(req);
  if (write && !req.allowWrite) {
    throw new Refusal("not_allowed", "This statement writes, and writes are not allowed for this call");
  }
  if (!write) {
    // Reads run on a read-only connection, so a misjudged read still cannot change the file.
    const { ro } = open();
    return { write, ...execute(ro, ro.prepare(req.sql), req, false) };
  }
  const { rw } = connections;
  if (!req.expect && !req.rowLog) return { write, ...execute(rw, stmt, req, true) };
  // A recorded write logs the rows it touches in its own transaction (req.rowLog, from the parent);
  // an approved write commits only if it changes exactly the rows its preview did.
  rw.exec("BEGIN IMMEDIATE");
  try {
    if (req.rowLog) rw.exec(req.rowLog.open);
    if (req.expect) watch(rw);
    const out = execute(rw, stmt, req, true);
    if (req.expect) {
      const basis = touched(rw, out.changes);
      if (basis.changes !== req.expect.changes || basis.rows !== req.expect.rows) {
        return { write, ...out, conflict: basis };
      }
      unwatch(rw);
    }
    if (req.rowLog) rw.exec(req.rowLog.close);
    rw.exec("COMMIT");
    return { write, ...out };
  } finally {
    if (rw.inTransaction) rw.exec("ROLLBACK");
  }
}

/**
 * Run a write inside a transaction that is always rolled back, to say what it would change: the
 * rows, and the `basis` an approval of it must match.
 */
function preview(req) {
  const { stmt, write } = inspect(req);
  if (!write) return { write, columns: [], rows: [], truncated: false, cutCells: 0, changes: 0 };
  const { rw } = connections;
  rw.exec("BEGIN IMMEDIATE");
  try {
    watch(rw);
    const out = execute(rw, stmt, req, true);
    return { write, ...out, basis: touched(rw, out.changes) };
  } finally {
    if (rw.inTransaction) rw.exec("ROLLBACK");
  }
}

/** Tables with their live columns and foreign keys. */
function describe() {
  const { ro } = open();
  const names = ro
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite%' ORDER BY name")
    .pluck()
    .all();
  return names.map((name) => {
    const quoted = `"${name.replace(/"/g, '""')}"`;
    const fks = ro.pragma(`foreign_key_list(${quoted})`);
    return {
      name,
      columns: ro.pragma(`table_info(${quoted})`).map((c) => {
        const fk = fks.find((f) => f.from === c.name);
        return {
          name: c.name,
          type: c.type,
          notNull: c.notnull === 1,
          primaryKey: c.pk > 0,
          default: c.dflt_value,
          references: fk ? `${fk.table}.${fk.to ?? "id"}` : null,
        };
      }),
    };
  });
}

function errorInfo(e) {
  if (e instanceof Refusal) return e.info;
  const message = String(e?.message ?? e);
  if (e instanceof RangeError && /more than one statement/.test(message)) {
    return { code: "not_allowed", message: "Exactly one statement per call: the text holds more than one" };
  }
  if (e instanceof RangeError || e instanceof TypeError) {
    return { code: "invalid_input", message, fields: [{ pointer: "/params", message }] };
  }
  const code = typeof e?.code === "string" ? e.code : "";
  if (code.startsWith("SQLITE_CONSTRAINT")) return { code: "conflict", message };
  if (code === "SQLITE_BUSY" || code === "SQLITE_LOCKED") return { code: "conflict", message };
  if (code === "SQLITE_AUTH" || code.startsWith("SQLITE_READONLY")) return { code: "not_allowed", message };
  if (code === "SQLITE_ERROR")
    return { code: "invalid_input", message, fields: [{ pointer: "/sql", message }] };
  if (code.startsWith("SQLITE_CANTOPEN"))
    return { code: "not_found", message: "project.sqlite cannot be opened" };
  return { code: "io_error", message };
}

const OPS = { inspect: (req) => ({ write: inspect(req).write }), run, preview, describe };

process.on("message", (req) => {
  let reply;
  try {
    const op = OPS[req.op];
    if (!op) throw new Refusal("internal", `unknown SQL process operation: ${req.op}`);
    reply = { id: req.id, ok: true, result: op(req) };
  } catch (e) {
    reply = { id: req.id, ok: false, error: errorInfo(e) };
  }
  process.send(reply);
});

// The parent went away (exited or closed the channel): nothing left to serve.
process.on("disconnect", () => process.exit(0));

process.send({ ready: true });
