import { randomUUID } from "node:crypto";
import { statSync } from "node:fs";
import type Database from "better-sqlite3";
import { openVersionedDb } from "../core/sqlite.js";
import type { Chunk } from "./chunks.js";
import type { Source } from "./files.js";
import { keywordQuery } from "./keyword-query.js";
import { cachedMatrix, type VectorMatrix } from "./vector-cache.js";
import { blobVector, TopK, vectorBlob } from "./vectors.js";

// Version 4: chunk ids only ever grow (AUTOINCREMENT), so "every chunk up to id N has a vector" and a
// cached vector matrix grown by higher ids stay true; older chunk tables are rebuilt (a cache).
const SCHEMA = `
DROP TABLE IF EXISTS chunk_fts;
DROP TABLE IF EXISTS chunks;
DROP TABLE IF EXISTS sources;
CREATE TABLE chunks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
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
CREATE INDEX chunks_hash ON chunks (hash);
CREATE VIRTUAL TABLE chunk_fts USING fts5(text, tokenize = 'trigram');
CREATE TABLE sources (
  subject TEXT NOT NULL,
  source TEXT NOT NULL,
  file_hash TEXT NOT NULL,
  file_length INTEGER NOT NULL,
  lines INTEGER NOT NULL,
  entries INTEGER NOT NULL,
  embedded TEXT,
  covered INTEGER NOT NULL DEFAULT 0,
  version TEXT NOT NULL,
  PRIMARY KEY (subject, source)
);
CREATE TABLE IF NOT EXISTS vectors (hash TEXT PRIMARY KEY, vector BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

/** How many matches of a query's common terms are ranked at most, the newest (see `rankedIds`). */
const RANKED = 2000;

/** Connections kept open by `SubjectIndex.shared`, least recently used first. */
const open = new Map<string, { index: SubjectIndex; ino: number }>();
const MAX_OPEN = 4;

/** A search hit: the chunk as stored, without any score. */
export type Hit = Omit<Chunk, "hash">;

/** What a sync changed: chunks added to and removed from the index. */
export interface SyncResult {
  added: number;
  removed: number;
}

/** The file text a source's chunks were last indexed from. */
export interface FileState {
  /** sha256 of the whole text. */
  hash: string;
  /** Its length in UTF-16 code units (JavaScript string length). */
  length: number;
  /** Newlines in it (the line number of its last line, when it ends with one). */
  lines: number;
  /** Entries (event lines, memory topics) parsed from it. */
  entries: number;
}

/** A source's indexed state: its file, and the model whose vectors all its chunks up to id `covered` have. */
export interface SourceState extends FileState {
  embedded: string | null;
  covered: number;
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
 * The index of a project's subject memories (`.nbook/subject-memory.sqlite`): a cache of the JSONL
 * files, rebuilt from them at any time. Chunks are keyed by content hash, so a sync only touches
 * the lines that changed; vectors are keyed by the same hash, so a chunk is embedded once and a
 * rebuild reuses every vector whose text is still there.
 */
export class SubjectIndex {
  private constructor(
    private readonly db: Database.Database,
    private readonly file: string,
  ) {}

  /** Open (creating) the index file. */
  static open(file: string): SubjectIndex {
    return new SubjectIndex(
      openVersionedDb({ what: "the subject memory index", file, version: 4, sql: SCHEMA }),
      file,
    );
  }

  /**
   * This process's connection to an index file, kept open across searches (a fresh connection
   * starts with a cold page cache and costs a keyword query several milliseconds more). It is
   * opened again when the file was replaced or deleted; callers do not close it. The least recently
   * used of a few are let go (closed when no search holds them any more).
   */
  static shared(file: string): SubjectIndex {
    const ino = statSync(file, { throwIfNoEntry: false })?.ino;
    const hit = open.get(file);
    if (hit) {
      open.delete(file);
      if (hit.ino === ino) {
        open.set(file, hit);
        return hit.index;
      }
    }
    const index = SubjectIndex.open(file);
    open.set(file, { index, ino: statSync(file).ino });
    for (const k of open.keys()) {
      if (open.size <= MAX_OPEN) break;
      open.delete(k);
    }
    return index;
  }

  close(): void {
    this.db.close();
  }

  /** The file state a source was last synced to, or null when it never was. */
  sourceState(subject: string, source: Source): SourceState | null {
    const r = this.db
      .prepare(
        "SELECT file_hash AS hash, file_length AS length, lines, entries, embedded, covered FROM sources WHERE subject = ? AND source = ?",
      )
      .get(subject, source) as SourceState | undefined;
    return r ?? null;
  }

  /**
   * Make the index hold exactly these chunks for one subject's source; only changed chunks are
   * (re)indexed. With `file`, the source is recorded as synced to that file text.
   */
  sync(subject: string, source: Source, chunks: readonly Chunk[], file?: FileState): SyncResult {
    return this.db
      .transaction((): SyncResult => {
        const existing = this.db
          .prepare("SELECT id, hash, ord FROM chunks WHERE subject = ? AND source = ?")
          .all(subject, source) as Pick<Row, "id" | "hash" | "ord">[];
        const wanted = new Map(chunks.map((c) => [c.hash, c]));
        let removed = 0;
        for (const r of existing) {
          if (wanted.has(r.hash)) continue;
          this.removeChunk(r.id, r.hash);
          removed++;
        }
        const added = this.addChunks(
          subject,
          source,
          wanted.values(),
          new Map(existing.map((r) => [r.hash, r])),
        );
        this.recordSync(subject, source, file, removed);
        return { added, removed };
      })
      .immediate();
  }

  /** Add chunks appended to a source's file (nothing removed); `file` is the whole new text's state. */
  append(subject: string, source: Source, chunks: readonly Chunk[], file: FileState): SyncResult {
    return this.db
      .transaction((): SyncResult => {
        const find = this.db.prepare(
          "SELECT id, hash, ord FROM chunks WHERE subject = ? AND source = ? AND hash = ?",
        );
        const have = new Map<string, Pick<Row, "id" | "hash" | "ord">>();
        for (const c of chunks) {
          const r = find.get(subject, source, c.hash) as Pick<Row, "id" | "hash" | "ord"> | undefined;
          if (r) have.set(c.hash, r);
        }
        const added = this.addChunks(subject, source, new Map(chunks.map((c) => [c.hash, c])).values(), have);
        this.recordSync(subject, source, file, 0);
        return { added, removed: 0 };
      })
      .immediate();
  }

  private removeChunk(id: number, hash: string): void {
    this.db.prepare("DELETE FROM chunk_fts WHERE rowid = ?").run(id);
    this.db.prepare("DELETE FROM chunks WHERE id = ?").run(id);
    // A vector is shared by every chunk with its text; it goes with the last of them.
    this.db
      .prepare("DELETE FROM vectors WHERE hash = ? AND NOT EXISTS (SELECT 1 FROM chunks WHERE hash = ?)")
      .run(hash, hash);
  }

  /** Insert the chunks not in `have`, move the ones that are to their new position; returns how many were added. */
  private addChunks(
    subject: string,
    source: Source,
    chunks: Iterable<Chunk>,
    have: ReadonlyMap<string, Pick<Row, "id" | "ord">>,
  ): number {
    const setOrd = this.db.prepare("UPDATE chunks SET ord = ? WHERE id = ?");
    const addChunk = this.db.prepare(
      "INSERT INTO chunks (subject, source, hash, ord, text, topic, tick, time) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    );
    const addFts = this.db.prepare("INSERT INTO chunk_fts (rowid, text) VALUES (?, ?)");
    let added = 0;
    for (const c of chunks) {
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
    return added;
  }

  /**
   * Record the file a source was synced to. Removed chunks give it a new version, which drops its
   * cached vector matrix (added chunks have higher ids and only grow it, see `cachedMatrix`).
   */
  private recordSync(subject: string, source: Source, file: FileState | undefined, removed: number): void {
    if (!file) {
      this.db.prepare("DELETE FROM sources WHERE subject = ? AND source = ?").run(subject, source);
      return;
    }
    this.db
      .prepare(
        `INSERT INTO sources (subject, source, file_hash, file_length, lines, entries, version)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (subject, source) DO UPDATE SET file_hash = excluded.file_hash,
           file_length = excluded.file_length, lines = excluded.lines, entries = excluded.entries,
           version = CASE WHEN ? > 0 THEN excluded.version ELSE sources.version END`,
      )
      .run(subject, source, file.hash, file.length, file.lines, file.entries, randomUUID(), removed);
  }

  /**
   * The best chunks of one subject's source for a keyword query. Only that subject's chunks are
   * candidates (filtered before ordering and the limit), so no other subject can crowd them out.
   * Terms of 3+ characters go through the trigram index (ranked by bm25); shorter ones, which
   * trigrams cannot match, by substring, after the indexed hits.
   */
  search(subject: string, source: Source, query: string, limit: number): Hit[] {
    return this.rowsByIds(this.keywordIds(subject, source, query, limit));
  }

  /** The ids of `search`'s hits, best first. */
  keywordIds(subject: string, source: Source, query: string, limit: number): number[] {
    const q = keywordQuery(query);
    const out: number[] = [];
    const seen = new Set<number>();
    const take = (ids: number[]) => {
      for (const id of ids) {
        if (out.length >= limit) return;
        if (seen.has(id)) continue;
        seen.add(id);
        out.push(id);
      }
    };
    if (q.phrases.length) take(this.rankedIds(subject, source, q.phrases, limit));
    if (q.short.length && out.length < limit) {
      const like = q.short.map(() => "instr(lower(text), lower(?)) > 0");
      take(
        this.db
          .prepare(
            `SELECT id FROM chunks WHERE subject = ? AND source = ? AND (${like.join(" OR ")})
             ORDER BY (${like.map((l) => `(${l})`).join(" + ")}) DESC, ord LIMIT ?`,
          )
          .pluck()
          .all(subject, source, ...q.short, ...q.short, limit + seen.size) as number[],
      );
    }
    return out;
  }

  /**
   * The best `limit` of a source's chunks matching any of `phrases`, by bm25 then
   * position. bm25 costs about a microsecond a match, so a query whose terms match thousands of
   * a subject's events ranks only the newest RANKED of them, and every match of its rarer terms
   * (those with at most RANKED matches here): all are scored by the same bm25 of the whole query.
   */
  private rankedIds(subject: string, source: Source, phrases: string[], limit: number): number[] {
    const match = phrases.join(" OR ");
    const from = `FROM chunk_fts JOIN chunks c ON c.id = chunk_fts.rowid
      WHERE chunk_fts MATCH ? AND c.subject = ? AND c.source = ?`;
    const count = this.db.prepare(`SELECT count(*) AS n FROM (SELECT 1 ${from} LIMIT ?)`);
    const rare = phrases.filter(
      (p) => (count.get(p, subject, source, RANKED + 1) as { n: number }).n <= RANKED,
    );
    const ids = (sql: string, ...args: unknown[]) =>
      (this.db.prepare(sql).all(...args) as { id: number }[]).map((r) => r.id);
    if (rare.length === phrases.length)
      return ids(
        `SELECT c.id ${from} ORDER BY bm25(chunk_fts), c.ord LIMIT ?`,
        match,
        subject,
        source,
        limit,
      );
    const newest = `SELECT * FROM (SELECT c.id, c.ord, bm25(chunk_fts) AS score ${from}
      ORDER BY chunk_fts.rowid DESC LIMIT ${RANKED})`;
    if (rare.length === 0)
      return ids(`SELECT id FROM (${newest}) ORDER BY score, ord LIMIT ?`, match, subject, source, limit);
    // "+": a rowid constraint handed to FTS5 makes bm25 take a second per thousand rows.
    return ids(
      `SELECT id FROM (${newest} UNION SELECT c.id, c.ord, bm25(chunk_fts) ${from}
         AND +chunk_fts.rowid IN (SELECT rowid FROM chunk_fts WHERE chunk_fts MATCH ?))
       ORDER BY score, ord LIMIT ?`,
      match,
      subject,
      source,
      match,
      subject,
      source,
      rare.join(" OR "),
      limit,
    );
  }

  /** The chunks of these ids, in the given order. */
  rowsByIds(ids: readonly number[]): Hit[] {
    if (!ids.length) return [];
    const rows = this.db
      .prepare(`SELECT * FROM chunks WHERE id IN (${ids.map(() => "?").join(",")})`)
      .all(...ids) as Row[];
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.flatMap((id) => {
      const r = byId.get(id);
      return r ? [hit(r)] : [];
    });
  }

  /**
   * The chunks of a source that have no vector of `model` yet (hash and text), and the highest
   * chunk id looked at. Vectors of another model are dropped first: they live in another space and
   * cannot be compared with this one's. Once a source is covered up to an id, only higher ids are
   * looked at, so after an append this reads the appended chunks only.
   */
  missingVectors(
    subject: string,
    source: Source,
    model: string,
  ): { missing: { hash: string; text: string }[]; upTo: number } {
    this.useModel(model);
    const state = this.sourceState(subject, source);
    const after = state?.embedded === model ? state.covered : 0;
    // From a known id, walk the ids from there (`+` keeps SQLite off the subject index, which would
    // visit every chunk of the subject); from the start, the subject index is the way.
    const where = after > 0 ? "+c.subject = ? AND +c.source = ?" : "c.subject = ? AND c.source = ?";
    const rows = this.db
      .prepare(
        `SELECT c.id, c.hash, c.text, EXISTS (SELECT 1 FROM vectors v WHERE v.hash = c.hash) AS has
         FROM chunks c WHERE c.id > ? AND ${where} ORDER BY c.id`,
      )
      .all(after, subject, source) as { id: number; hash: string; text: string; has: number }[];
    return {
      missing: rows.filter((r) => !r.has).map((r) => ({ hash: r.hash, text: r.text })),
      upTo: rows.length ? rows[rows.length - 1]!.id : after,
    };
  }

  private useModel(model: string): void {
    const row = this.db.prepare("SELECT value FROM meta WHERE key = 'embedding'").get() as
      | { value: string }
      | undefined;
    if (row?.value === model) return;
    this.db
      .transaction(() => {
        this.db.exec(
          "DELETE FROM vectors; UPDATE sources SET embedded = NULL, covered = 0, version = lower(hex(randomblob(16)));",
        );
        this.db
          .prepare(
            "INSERT INTO meta (key, value) VALUES ('embedding', ?) ON CONFLICT (key) DO UPDATE SET value = ?",
          )
          .run(model, model);
      })
      .immediate();
  }

  /**
   * Store vectors of `model` by chunk hash, and record that every chunk of the source up to id
   * `upTo` (what `missingVectors` looked at) now has one, unless the model changed meanwhile.
   */
  storeVectors(
    subject: string,
    source: Source,
    model: string,
    upTo: number,
    vectors: readonly { hash: string; vector: Float32Array }[],
  ): void {
    this.db
      .transaction(() => {
        const put = this.db.prepare("INSERT OR REPLACE INTO vectors (hash, vector) VALUES (?, ?)");
        for (const v of vectors) put.run(v.hash, vectorBlob(v.vector));
        this.db
          .prepare(
            `UPDATE sources SET embedded = ?, covered = ? WHERE subject = ? AND source = ?
             AND (SELECT value FROM meta WHERE key = 'embedding') = ?`,
          )
          .run(model, upTo, subject, source, model);
      })
      .immediate();
  }

  /**
   * The `k` chunks of one subject's source most similar to a unit query vector, at least
   * `minSimilarity`, best first. Only that subject's chunks are scanned (partitioned before
   * ranking), in a tight loop over a float32 matrix kept in memory while the source's version
   * stays the same (bench memory: faster than a SQLite function, which must read every vector).
   */
  nearest(
    subject: string,
    source: Source,
    query: Float32Array,
    k: number,
    minSimilarity: number,
  ): { id: number; similarity: number }[] {
    const m = this.db.transaction(() => {
      const state = this.db
        .prepare("SELECT version, embedded, covered FROM sources WHERE subject = ? AND source = ?")
        .get(subject, source) as { version: string; embedded: string | null; covered: number } | undefined;
      // The matrix kept holds exactly the chunks up to `covered`, which all have a vector; a chunk
      // above it may still lack one and would otherwise be skipped for good when the matrix grows.
      if (!state?.embedded) return this.loadMatrix(subject, source, query.length, 0, Number.MAX_SAFE_INTEGER);
      const upTo = state.covered;
      return cachedMatrix(
        `${this.file}\0${subject}\0${source}`,
        state.version,
        () => this.loadMatrix(subject, source, query.length, 0, upTo),
        (after) => this.loadMatrix(subject, source, query.length, after, upTo),
      );
    })();
    const top = new TopK(k);
    const d = query.length;
    const { rows, ids, data } = m;
    for (let r = 0, off = 0; r < rows; r++, off += d) {
      let s = 0;
      for (let i = 0; i < d; i++) s += data[off + i]! * query[i]!;
      if (s >= minSimilarity) top.offer(ids[r]!, s);
    }
    return top.ids.map((id, i) => ({ id, similarity: top.scores[i]! }));
  }

  /** The vectors of a source's chunks with an id in (after, upTo], by ascending id. */
  private loadMatrix(
    subject: string,
    source: Source,
    dims: number,
    after: number,
    upTo: number,
  ): VectorMatrix {
    const where = after > 0 ? "+c.subject = ? AND +c.source = ?" : "c.subject = ? AND c.source = ?";
    const rows = this.db
      .prepare(
        `SELECT c.id, v.vector FROM chunks c JOIN vectors v ON v.hash = c.hash
         WHERE c.id > ? AND c.id <= ? AND ${where} ORDER BY c.id`,
      )
      .raw()
      .all(after, upTo, subject, source) as [number, Uint8Array][];
    const ids = new Int32Array(rows.length);
    const data = new Float32Array(rows.length * dims);
    rows.forEach(([id, blob], r) => {
      ids[r] = id;
      data.set(blobVector(blob), r * dims);
    });
    return { rows: rows.length, ids, data };
  }

  /** Drop every chunk and source state (before a full rebuild); vectors stay, to be reused by hash. */
  clear(): void {
    this.db.exec("DELETE FROM chunks; DELETE FROM chunk_fts; DELETE FROM sources;");
  }

  /** Drop vectors no chunk has any more (after a full rebuild); returns how many. */
  pruneVectors(): number {
    return this.db.prepare("DELETE FROM vectors WHERE hash NOT IN (SELECT hash FROM chunks)").run().changes;
  }
}
