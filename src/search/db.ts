import type Database from "better-sqlite3";
import { openVersionedDb } from "../core/sqlite.js";

/**
 * The project's full-text index (`.nbook/search.sqlite`): one FTS5 row per non-blank line, under the
 * trigram tokenizer so that Chinese (no spaces between words) matches by substring as English does.
 * A line's rowid is its file's id times LINE_SLOTS plus its line number, and each file records the
 * last line it indexed: its rows are dropped one rowid at a time, which FTS5 finds at once (a rowid
 * range is a scan of the whole table).
 */
export const LINE_SLOTS = 1 << 20;

// The index is a cache of the files: an older layout is dropped and built again from them.
const SQL = `
DROP TABLE IF EXISTS files;
DROP TABLE IF EXISTS lines;
CREATE TABLE IF NOT EXISTS files (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  ino INTEGER NOT NULL,
  size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  title TEXT,
  last_line INTEGER NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS lines USING fts5(text, tokenize = 'trigram');
`;

export function openSearchDb(file: string): Database.Database {
  return openVersionedDb({ what: "the search index", file, version: 2, sql: SQL });
}
