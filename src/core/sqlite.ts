import Database from "better-sqlite3";
import { NbError } from "./errors.js";

/** A database with one schema script and a version in `PRAGMA user_version`. */
export interface VersionedSchema {
  /** How errors name the database, e.g. "the session store" / "agent.sqlite". */
  what: string;
  file: string;
  version: number;
  /** Idempotent DDL (`CREATE … IF NOT EXISTS`), run when the file is older than `version`. */
  sql: string;
}

/**
 * Open a database in WAL mode with foreign keys and a busy timeout, and bring it up to the schema
 * version (refusing a file written by a newer nbook). The connection is closed on any failure.
 */
export function openVersionedDb(schema: VersionedSchema): Database.Database {
  let db: Database.Database;
  try {
    db = new Database(schema.file);
  } catch (e) {
    throw new NbError("io_error", `Cannot open ${schema.what}: ${(e as Error).message}`);
  }
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    db.pragma("busy_timeout = 5000");
    const name = schema.file.split(/[\\/]/).pop();
    const version = db.pragma("user_version", { simple: true }) as number;
    if (version > schema.version) {
      throw new NbError(
        "config_error",
        `${name} has schema version ${version}, newer than this nbook (${schema.version}); upgrade nbook`,
      );
    }
    if (version < schema.version) {
      db.transaction(() => {
        db.exec(schema.sql);
        db.pragma(`user_version = ${schema.version}`);
      }).immediate();
    }
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

/** Parse a public id (a decimal string) into the integer key; `not_found` for anything else. */
export function toKey(id: string, what: string): number {
  if (/^[1-9]\d{0,15}$/.test(id)) return Number(id);
  // Something that is not a number at all (a title, a job id) gets told what an id looks like.
  const hint = /^\d+$/.test(id) ? "" : `: ${what} ids are numbers, such as 1 or 42`;
  throw new NbError("not_found", `No ${what} with id "${id}"${hint}`);
}

/** The current time as stored (ISO 8601, UTC). */
export function now(): string {
  return new Date().toISOString();
}
