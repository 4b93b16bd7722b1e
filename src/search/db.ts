import type Database from "better-sqlite3";
import { openVersionedDb } from "../core/sqlite.js";

/**
 * The project's full-text index (`.nbook/search.sqlite`): one FTS5 row per non-blank line, under the
 * trigram tokenizer so that Chinese (no spaces between words) matches by substring as English does.
 * A line's rowid is its file's id times LINE_SLOTS plus its line number, so a file's rows are one
 * rowid range: replaced or dropped without scanning the index.
 */
export const LINE_SLOTS = 1 << 20;

const SQL = `
CREATE TABLE IF NOT EXISTS files (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  ino INTEGER NOT NULL,
  size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  title TEXT
);
CREATE VIRTUAL TABLE IF NOT EXISTS lines USING fts5(text, tokenize = 'trigram');
`;

export function openSearchDb(file: string): Database.Database {
  return openVersionedDb({ what: "the search index", file, version: 1, sql: SQL });
}
