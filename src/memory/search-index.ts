import type Database from "better-sqlite3";
import { openVersionedDb } from "../core/sqlite.js";
import type { Chunk } from "./chunks.js";
import type { Source } from "./files.js";
import { keywordQuery } from "./keyword-query.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS chunks (
  id INTEGER PRIMARY KEY,
  subject TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('events', 'memory')),
  hash TEXT NOT NULL,
  ord INTEGER NOT NULL,
  text TEXT NOT NULL,
  topic TEXT,
  tick TEXT,
  time TEXT,
  UNIQUE (subject, source, hash)
);
CREATE VIRTUAL TABLE IF NOT EXISTS chunk_fts USING fts5(text, tokenize = 'trigram');
`;

/** A search hit: the chunk as stored, without any score. */
export type Hit = Omit<Chunk, "hash">;

/** What a sync changed: chunks added to and removed from the index. */
export interface SyncResult {
  added: number;
  removed: number;
}

interface Row {
  id: number;
  hash: string;
  ord: number;
  text: string;
  topic: string | null;
  tick: string | null;
  time: string | null;
}

function hit(r: Row): Hit {
  return {
    ord: r.ord,
    text: r.text,
    ...(r.topic === null ? {} : { topic: r.topic }),
    ...(r.tick === null ? {} : { tick: r.tick }),
    ...(r.time === null ? {} : { time: r.time }),
  };
}

/**
 * The keyword index of a project's subject memories (`.nbook/subject-memory.sqlite`): a cache of the
 * JSONL files, rebuilt from them at any time. Chunks are keyed by content hash, so a sync only
 * touches the lines that changed.
 */
export class SubjectIndex {
  private constructor(private readonly db: Database.Database) {}

  /** Open (creating) the index file. */
  static open(file: string): SubjectIndex {
    return new SubjectIndex(
      openVersionedDb({ what: "the subject memory index", file, version: 1, sql: SCHEMA }),
    );
  }

  close(): void {
    this.db.close();
  }

  /** Make the index hold exactly these chunks for one subject's source; only changed chunks are (re)indexed. */
  sync(subject: string, source: Source, chunks: readonly Chunk[]): SyncResult {
    return this.db
      .transaction((): SyncResult => {
        const existing = this.db
          .prepare("SELECT id, hash, ord FROM chunks WHERE subject = ? AND source = ?")
          .all(subject, source) as Pick<Row, "id" | "hash" | "ord">[];
        const wanted = new Map(chunks.map((c) => [c.hash, c]));
        const have = new Map(existing.map((r) => [r.hash, r]));
        const delChunk = this.db.prepare("DELETE FROM chunks WHERE id = ?");
        const delFts = this.db.prepare("DELETE FROM chunk_fts WHERE rowid = ?");
        const setOrd = this.db.prepare("UPDATE chunks SET ord = ? WHERE id = ?");
        const addChunk = this.db.prepare(
          "INSERT INTO chunks (subject, source, hash, ord, text, topic, tick, time) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        );
        const addFts = this.db.prepare("INSERT INTO chunk_fts (rowid, text) VALUES (?, ?)");
        let removed = 0;
        for (const r of existing) {
          if (wanted.has(r.hash)) continue;
          delFts.run(r.id);
          delChunk.run(r.id);
          removed++;
        }
        let added = 0;
        for (const c of wanted.values()) {
          const old = have.get(c.hash);
          if (old) {
            if (old.ord !== c.ord) setOrd.run(c.ord, old.id);
            continue;
          }
          const id = addChunk.run(
            subject,
            source,
            c.hash,
            c.ord,
            c.text,
            c.topic ?? null,
            c.tick ?? null,
            c.time ?? null,
          ).lastInsertRowid;
          addFts.run(id, c.text);
          added++;
        }
        return { added, removed };
      })
      .immediate();
  }

  /**
   * The best chunks of one subject's source for a keyword query. Only that subject's chunks are
   * candidates (filtered before ordering and the limit), so no other subject can crowd them out.
   * Terms of 3+ characters go through the trigram index (ranked by bm25); shorter ones, which
   * trigrams cannot match, by substring, after the indexed hits.
   */
  search(subject: string, source: Source, query: string, limit: number): Hit[] {
    const q = keywordQuery(query);
    const out: Row[] = [];
    const seen = new Set<number>();
    const take = (rows: Row[]) => {
      for (const r of rows) {
        if (out.length >= limit) return;
        if (seen.has(r.id)) continue;
        seen.add(r.id);
        out.push(r);
      }
    };
    if (q.match !== null) {
      take(
        this.db
          .prepare(
            `SELECT c.* FROM chunk_fts JOIN chunks c ON c.id = chunk_fts.rowid
             WHERE chunk_fts MATCH ? AND c.subject = ? AND c.source = ?
             ORDER BY bm25(chunk_fts), c.ord LIMIT ?`,
          )
          .all(q.match, subject, source, limit) as Row[],
      );
    }
    if (q.short.length && out.length < limit) {
      const like = q.short.map(() => "instr(lower(text), lower(?)) > 0");
      take(
        this.db
          .prepare(
            `SELECT * FROM chunks WHERE subject = ? AND source = ? AND (${like.join(" OR ")})
             ORDER BY (${like.map((l) => `(${l})`).join(" + ")}) DESC, ord LIMIT ?`,
          )
          .all(subject, source, ...q.short, ...q.short, limit + seen.size) as Row[],
      );
    }
    return out.map(hit);
  }

  /** Drop every chunk (before a full rebuild). */
  clear(): void {
    this.db.exec("DELETE FROM chunks; DELETE FROM chunk_fts;");
  }
}
