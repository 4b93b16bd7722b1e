import { existsSync } from "node:fs";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { openVersionedDb } from "../core/sqlite.js";
import type { RankingSnapshot } from "./shapes.js";

type Db = Database.Database;

/**
 * The snapshot store, `<workspace>/.nbook/research.sqlite`. It is the workspace's, not a project's:
 * a board's ranking is about the market, not one novel, so every project of the workspace shares
 * the history (and its rank movement), and its research sources are configured for the workspace.
 */
export function researchDbPath(workspaceRoot: string): string {
  return join(workspaceRoot, ".nbook", "research.sqlite");
}

/** Schema version this code writes; a newer file is refused rather than misread. */
export const RESEARCH_SCHEMA_VERSION = 1;

const SCHEMA = `
-- One row per distinct snapshot of a board from one source: fetched_at is the source's collection
-- time (ISO, UTC), so asking again for an unchanged board adds no row but counts the retrieval.
CREATE TABLE IF NOT EXISTS snapshots (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  source_key TEXT NOT NULL,
  source_label TEXT NOT NULL,
  platform TEXT NOT NULL,
  board TEXT NOT NULL,
  board_name TEXT NOT NULL,
  fetched_at TEXT NOT NULL,
  first_retrieved_at TEXT NOT NULL,
  last_retrieved_at TEXT NOT NULL,
  retrievals INTEGER NOT NULL,
  item_count INTEGER NOT NULL,
  data TEXT NOT NULL,
  UNIQUE (source_key, platform, board, fetched_at)
);
CREATE INDEX IF NOT EXISTS snapshots_by_board ON snapshots(platform, board, fetched_at);

-- The books of each snapshot, for a book's rank history across boards.
CREATE TABLE IF NOT EXISTS snapshot_items (
  snapshot_id INTEGER NOT NULL REFERENCES snapshots(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  platform TEXT NOT NULL,
  book_id TEXT NOT NULL,
  rank INTEGER NOT NULL,
  title TEXT NOT NULL,
  PRIMARY KEY (snapshot_id, position)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS items_by_book ON snapshot_items(platform, book_id);
`;

/** A stored snapshot's bookkeeping. */
export interface SnapshotRow {
  id: number;
  source: string;
  platform: string;
  board: string;
  boardName: string;
  fetchedAt: string;
  firstRetrievedAt: string;
  lastRetrievedAt: string;
  retrievals: number;
  items: number;
}

/** One board in the store. */
export interface BoardRow {
  platform: string;
  board: string;
  boardName: string;
  snapshots: number;
  latestFetchedAt: string;
  lastRetrievedAt: string;
}

/** A book's rank in one stored snapshot. */
export interface RankPoint {
  board: string;
  boardName: string;
  rank: number;
  fetchedAt: string;
}

const ROW_COLUMNS = `id, source_label AS source, platform, board, board_name AS boardName,
  fetched_at AS fetchedAt, first_retrieved_at AS firstRetrievedAt, last_retrieved_at AS lastRetrievedAt,
  retrievals, item_count AS items`;

/** Normalise an instant to ISO UTC, so stored times order as strings. */
export function isoUtc(instant: string | Date): string {
  return (typeof instant === "string" ? new Date(instant) : instant).toISOString();
}

function openDb(file: string): Db {
  return openVersionedDb({ what: "the research store", file, version: RESEARCH_SCHEMA_VERSION, sql: SCHEMA });
}

/**
 * Every ranking snapshot nbook has fetched, with the times it was retrieved. Opened for one call and
 * closed after it (the call waits on a network source anyway; no connection outlives it).
 */
export class ResearchStore {
  private readonly db: Db;
  private readonly stmt;

  private constructor(db: Db) {
    this.db = db;
    this.stmt = {
      find: db.prepare<[string, string, string, string], { id: number }>(
        "SELECT id FROM snapshots WHERE source_key = ? AND platform = ? AND board = ? AND fetched_at = ?",
      ),
      insert: db.prepare(
        `INSERT INTO snapshots (source_key, source_label, platform, board, board_name, fetched_at,
           first_retrieved_at, last_retrieved_at, retrievals, item_count, data)
         VALUES (@sourceKey, @sourceLabel, @platform, @board, @boardName, @fetchedAt, @at, @at, @retrievals, @items, @data)`,
      ),
      item: db.prepare(
        "INSERT INTO snapshot_items (snapshot_id, position, platform, book_id, rank, title) VALUES (?, ?, ?, ?, ?, ?)",
      ),
      retrieved: db.prepare(
        "UPDATE snapshots SET last_retrieved_at = ?, retrievals = retrievals + 1, source_label = ? WHERE id = ?",
      ),
      previous: db.prepare<[string, string, string, string], { data: string }>(
        `SELECT data FROM snapshots WHERE source_key = ? AND platform = ? AND board = ? AND fetched_at < ?
         ORDER BY fetched_at DESC LIMIT 1`,
      ),
      countBoard: db.prepare<[string, string, string], { n: number }>(
        "SELECT count(*) AS n FROM snapshots WHERE source_key = ? AND platform = ? AND board = ?",
      ),
      boards: db.prepare<[], BoardRow>(
        `SELECT platform, board, max(board_name) AS boardName, count(*) AS snapshots,
           max(fetched_at) AS latestFetchedAt, max(last_retrieved_at) AS lastRetrievedAt
         FROM snapshots GROUP BY platform, board ORDER BY platform, board`,
      ),
      ofBoard: db.prepare<[string, string], SnapshotRow>(
        `SELECT ${ROW_COLUMNS} FROM snapshots WHERE platform = ? AND board = ? ORDER BY fetched_at DESC, id DESC`,
      ),
      history: db.prepare<[string, string, string, number], RankPoint>(
        `SELECT s.board, s.board_name AS boardName, i.rank, s.fetched_at AS fetchedAt
         FROM snapshot_items i JOIN snapshots s ON s.id = i.snapshot_id
         WHERE i.platform = ? AND i.book_id = ? AND s.source_key = ?
         ORDER BY s.fetched_at DESC, s.board LIMIT ?`,
      ),
      booksOf: db.prepare<[string, number], { bookId: string; title: string }>(
        `SELECT book_id AS bookId, max(title) AS title FROM snapshot_items WHERE platform = ?
         GROUP BY book_id ORDER BY book_id LIMIT ?`,
      ),
    };
  }

  /** Open the store of a workspace, creating it on first use. */
  static open(workspaceRoot: string): ResearchStore {
    return new ResearchStore(openDb(researchDbPath(workspaceRoot)));
  }

  /** Open the store only if it exists (a listing creates no file); null when nothing was stored yet. */
  static openExisting(workspaceRoot: string): ResearchStore | null {
    const file = researchDbPath(workspaceRoot);
    return existsSync(file) ? new ResearchStore(openDb(file)) : null;
  }

  /**
   * Keep a snapshot from a source. `retrieved` is true for the board's current snapshot, which
   * counts as one more retrieval when it is already stored; an archived one is only added if new.
   */
  record(
    source: { key: string; label: string },
    s: RankingSnapshot,
    at: Date,
    retrieved: boolean,
  ): { id: number; added: boolean } {
    const fetchedAt = isoUtc(s.fetchedAt);
    return this.db
      .transaction(() => {
        const found = this.stmt.find.get(source.key, s.platform, s.rankTypeKey, fetchedAt);
        if (found) {
          if (retrieved) this.stmt.retrieved.run(isoUtc(at), source.label, found.id);
          return { id: found.id, added: false };
        }
        const info = this.stmt.insert.run({
          sourceKey: source.key,
          sourceLabel: source.label,
          platform: s.platform,
          board: s.rankTypeKey,
          boardName: s.rankType,
          fetchedAt,
          at: isoUtc(at),
          retrievals: retrieved ? 1 : 0,
          items: s.items.length,
          data: JSON.stringify(s),
        });
        const id = Number(info.lastInsertRowid);
        s.items.forEach((item, position) => {
          this.stmt.item.run(id, position, s.platform, item.externalBookId, item.rank, item.title);
        });
        return { id, added: true };
      })
      .immediate();
  }

  /** The snapshot of the same board and source collected last before `fetchedAt`, if any. */
  previous(sourceKey: string, platform: string, board: string, fetchedAt: string): RankingSnapshot | null {
    const row = this.stmt.previous.get(sourceKey, platform, board, isoUtc(fetchedAt));
    return row ? (JSON.parse(row.data) as RankingSnapshot) : null;
  }

  /** How many snapshots of a board from one source are stored. */
  countOf(sourceKey: string, platform: string, board: string): number {
    return this.stmt.countBoard.get(sourceKey, platform, board)?.n ?? 0;
  }

  /** Every board with stored snapshots (of any source). */
  boards(): BoardRow[] {
    return this.stmt.boards.all();
  }

  /** The stored snapshots of one board, newest first. */
  snapshotsOf(platform: string, board: string): SnapshotRow[] {
    return this.stmt.ofBoard.all(platform, board);
  }

  /** A book's ranks in the stored snapshots of one source, newest first. */
  rankHistory(sourceKey: string, platform: string, bookId: string, limit = 10): RankPoint[] {
    return this.stmt.history.all(platform, bookId, sourceKey, limit);
  }

  /** Books seen on a platform's stored boards (for naming known books). */
  booksSeen(platform: string, limit = 20): { bookId: string; title: string }[] {
    return this.stmt.booksOf.all(platform, limit);
  }

  close(): void {
    this.db.close();
  }
}
