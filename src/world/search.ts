import type Database from "better-sqlite3";
import { NbError } from "../core/errors.js";
import type { SearchHit, SearchOptions } from "./api.js";
import { segmentsOf } from "./pointer.js";
import { holdsText, type WorldSchema } from "./schema.js";

interface HitRow {
  subject_id: string;
  type: string;
  attr: string;
  body: string;
  body_id: number;
  rank: number;
}

/** Most entries without a vector that one search embeds (and stores), beyond its keyword hits. */
const NEW_VECTORS_PER_SEARCH = 256;

const CJK = /[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]/;

/**
 * The FTS5 (trigram) match expression for a query: each whitespace-separated term of 3+ characters
 * as a phrase, plus the trigrams of CJK terms so partial overlaps still rank; null when no term is
 * long enough for trigrams.
 */
export function matchExpression(query: string): string | null {
  const parts = new Set<string>();
  for (const term of query.split(/\s+/).filter(Boolean)) {
    const chars = [...term];
    if (chars.length < 3) continue;
    parts.add(quote(term));
    if (CJK.test(term) && chars.length > 3)
      for (let i = 0; i + 3 <= chars.length; i++) parts.add(quote(chars.slice(i, i + 3).join("")));
  }
  return parts.size ? [...parts].join(" OR ") : null;
}

/**
 * The FTS5 word-index expression for a query: each whitespace-separated term without CJK
 * characters as a phrase of whole words; null when there is none.
 */
export function wordExpression(query: string): string | null {
  const parts = new Set<string>();
  for (const term of query.split(/\s+/).filter(Boolean)) if (!CJK.test(term)) parts.add(quote(term));
  return parts.size ? [...parts].join(" OR ") : null;
}

function quote(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

/**
 * The SQL conditions, with their arguments in placeholder order, that keep text entries live at
 * `at` (now when undefined) and within the searched subject types and top-level attributes.
 */
function scopeFilter(
  at: number | undefined,
  types?: string[],
  tops?: string[],
): { where: string[]; args: unknown[] } {
  const where: string[] = [];
  const args: unknown[] = [];
  if (at === undefined) where.push("t.to_instant IS NULL");
  else {
    where.push("t.from_instant <= ? AND (t.to_instant IS NULL OR t.to_instant > ?)");
    args.push(at, at);
  }
  if (types) {
    where.push(`s.type IN (${types.map(() => "?").join(",")})`);
    args.push(...types);
  }
  if (tops) {
    where.push(`t.top IN (${tops.map(() => "?").join(",")})`);
    args.push(...tops);
  }
  return { where, args };
}

/**
 * Embeds texts synchronously, as the World API is synchronous: one L2-normalised vector per text.
 * `model` names the vector space; stored vectors of another one are never compared.
 */
export interface TextEmbedder {
  readonly model: string;
  embed(texts: string[]): Float32Array[];
}

/** The embedder of one search, or null for keyword-only search (asked each time: settings change). */
export type EmbedFn = () => TextEmbedder | null;

/**
 * Keyword search over live text entries, with optional embedding re-ranking. Vectors are stored
 * once per distinct text; those computed inside a transaction that later rolls back (a read-only
 * script, a dry run) are kept aside and stored by `settle()`.
 */
export class TextSearch {
  private readonly unsettled = new Map<string, { vector: Buffer; model: string }>();

  constructor(
    private readonly db: Database.Database,
    private readonly schema: () => WorldSchema,
    private readonly embed: EmbedFn,
  ) {}

  search(query: string, opts: SearchOptions = {}): SearchHit[] {
    const k = opts.k ?? 10;
    const { types, tops } = this.scope(opts);
    if (query.trim() === "") return [];
    const client = this.embed();
    const pool = client ? Math.max(k * 4, 40) : k;
    const rows = this.keyword(query, pool, opts.at, types, tops);
    const hits = client
      ? this.rerank(client, query, rows, k, opts.at, types, tops)
      : rows.map((r) => toHit(r, -r.rank));
    return hits.slice(0, k);
  }

  /**
   * Store the vectors computed inside transactions, once no transaction is open. Best effort: a
   * busy database keeps them for the next call (a vector is only a cache of the embedding service).
   */
  settle(): void {
    if (!this.unsettled.size || this.db.inTransaction) return;
    const put = this.db.prepare("UPDATE text_bodies SET vector = ?, model = ? WHERE body = ?");
    try {
      this.db.transaction(() => {
        for (const [body, v] of this.unsettled) put.run(v.vector, v.model, body);
      })();
      this.unsettled.clear();
    } catch {
      // Kept for the next settle.
    }
  }

  /** Validate `types`/`attrs` against the schema; returns SQL filters. */
  private scope(opts: SearchOptions): { types?: string[]; tops?: string[] } {
    const schema = this.schema();
    const declared = Object.keys(schema.types);
    if (opts.types && declared.length) {
      const unknown = opts.types.filter((t) => !declared.includes(t));
      if (unknown.length)
        throw new NbError("invalid_input", `unknown subject type(s): ${unknown.join(", ")}`, {
          fields: [{ pointer: "/types", message: "unknown type" }],
        });
    }
    let tops: string[] | undefined;
    if (opts.attrs) {
      tops = opts.attrs.map((a) => (a.startsWith("/") ? segmentsOf(a)[0] : a.split(".")[0]));
      const inScope = (opts.types ?? declared).map((t) => schema.types[t]).filter(Boolean);
      for (const top of tops) {
        if (!inScope.some((t) => holdsText(t.attrs[top]))) {
          throw new NbError("invalid_input", `"${top}" is not a text attribute of the searched types`, {
            fields: [{ pointer: "/attrs", message: "not a text attribute" }],
          });
        }
      }
    }
    return { types: opts.types, tops };
  }

  /**
   * The best `limit` live entries for the query: entries holding a query term as a whole word
   * first (word index), then entries holding it inside a word or in CJK text (trigram index, or a
   * substring scan when every term is shorter than a trigram).
   */
  private keyword(
    query: string,
    limit: number,
    at: number | undefined,
    types?: string[],
    tops?: string[],
  ): HitRow[] {
    const words = wordExpression(query);
    const grams = matchExpression(query);
    const stages: Array<() => HitRow[]> = [];
    if (words) stages.push(() => this.ranked("text_words", words, limit, at, types, tops));
    // Terms too short for trigrams are looked for as substrings when all are so short.
    stages.push(
      grams
        ? () => this.ranked("text_fts", grams, limit, at, types, tops)
        : () => this.substring(query, limit, at, types, tops),
    );
    const hits = new Map<string, HitRow>();
    for (const stage of stages) {
      if (hits.size >= limit) break;
      for (const r of stage()) {
        const key = `${r.subject_id}\u0000${r.attr}`;
        if (!hits.has(key) && hits.size < limit) hits.set(key, r);
      }
    }
    return [...hits.values()];
  }

  /**
   * The best `limit` live entries by one full-text index. The index ranks bodies on its own, and
   * only the best of them are joined to their entries: more (eight times as many each round) when
   * too few of those are live at `at` or in scope.
   */
  private ranked(
    index: "text_words" | "text_fts",
    expr: string,
    limit: number,
    at: number | undefined,
    types?: string[],
    tops?: string[],
  ): HitRow[] {
    const best = this.db.prepare<[string, number], { id: number; rank: number }>(
      `SELECT rowid AS id, bm25(${index}) AS rank FROM ${index} WHERE ${index} MATCH ? ORDER BY rank LIMIT ?`,
    );
    const { where, args } = scopeFilter(at, types, tops);
    const entries = this.db.prepare<unknown[], Omit<HitRow, "rank">>(
      `SELECT t.subject_id, s.type, t.attr, b.body, b.id AS body_id
       FROM texts t JOIN text_bodies b ON b.id = t.body_id JOIN subjects s ON s.id = t.subject_id
       WHERE t.body_id IN (SELECT value FROM json_each(?)) AND ${where.join(" AND ")}`,
    );
    for (let n = Math.max(limit * 2, 16); ; n *= 8) {
      const bodies = best.all(expr, n);
      const rank = new Map(bodies.map((b) => [b.id, b.rank]));
      const rows = entries
        .all(JSON.stringify(bodies.map((b) => b.id)), ...args)
        .map((r) => ({ ...r, rank: rank.get(r.body_id) as number }))
        .sort(
          (a, b) =>
            a.rank - b.rank || a.subject_id.localeCompare(b.subject_id) || a.attr.localeCompare(b.attr),
        );
      if (rows.length >= limit || bodies.length < n) return rows.slice(0, limit);
    }
  }

  /** Entries containing every term, for queries whose terms are all too short for trigrams. */
  private substring(
    query: string,
    limit: number,
    at: number | undefined,
    types?: string[],
    tops?: string[],
  ): HitRow[] {
    const { where, args } = scopeFilter(at, types, tops);
    const terms = query.split(/\s+/).filter(Boolean);
    const sql = `SELECT t.subject_id, s.type, t.attr, b.body, b.id AS body_id, -1.0 AS rank
      FROM texts t JOIN text_bodies b ON b.id = t.body_id JOIN subjects s ON s.id = t.subject_id
      WHERE ${terms.map(() => "instr(b.body, ?) > 0").join(" AND ")} AND ${where.join(" AND ")} ORDER BY t.subject_id, t.attr LIMIT ?`;
    return this.db.prepare<unknown[], HitRow>(sql).all(...terms, ...args, limit);
  }

  /** Combine keyword rank and cosine similarity; vectors are stored once per distinct text. */
  private rerank(
    client: TextEmbedder,
    query: string,
    rows: HitRow[],
    k: number,
    at?: number,
    types?: string[],
    tops?: string[],
  ): SearchHit[] {
    const vectorRows = this.vectorCandidates(client, at, types, tops);
    const byKey = new Map<string, HitRow>();
    for (const r of [...rows, ...vectorRows]) {
      const key = `${r.subject_id}\u0000${r.attr}`;
      if (!byKey.has(key)) byKey.set(key, r);
    }
    const candidates = [...byKey.values()];
    this.ensureVectors(
      client,
      candidates.map((r) => ({ id: r.body_id, body: r.body })),
    );
    const [qv] = client.embed([query]);
    const vectors = this.vectors(
      client.model,
      candidates.map((r) => r.body_id),
    );
    const best = Math.max(1e-9, ...rows.map((r) => -r.rank));
    const scored = candidates.map((r) => {
      const kw = rows.includes(r) ? Math.max(0, -r.rank) / best : 0;
      const v = vectors.get(r.body_id);
      const cos = v ? dot(qv, v) : 0;
      return toHit(r, 0.4 * kw + 0.6 * cos);
    });
    return scored.sort((a, b) => b.score - a.score).slice(0, k);
  }

  /**
   * Semantic candidates beyond the keyword hits: live entries that have a vector for the
   * configured model, plus up to NEW_VECTORS_PER_SEARCH that have none yet (embedded now, once).
   */
  private vectorCandidates(client: TextEmbedder, at?: number, types?: string[], tops?: string[]): HitRow[] {
    const scope = scopeFilter(at, types, tops);
    const select = `SELECT t.subject_id, s.type, t.attr, b.body, b.id AS body_id, 0.0 AS rank
      FROM texts t JOIN text_bodies b ON b.id = t.body_id JOIN subjects s ON s.id = t.subject_id
      WHERE ${scope.where.join(" AND ")} AND`;
    const have = this.db.prepare<unknown[], HitRow>(`${select} b.model = ?`).all(...scope.args, client.model);
    const missing = this.db
      .prepare<unknown[], HitRow>(`${select} (b.model IS NULL OR b.model != ?) ORDER BY b.id LIMIT ?`)
      .all(...scope.args, client.model, NEW_VECTORS_PER_SEARCH);
    return [...have, ...missing];
  }

  private ensureVectors(client: TextEmbedder, bodies: Array<{ id: number; body: string }>): void {
    const have = this.vectors(
      client.model,
      bodies.map((b) => b.id),
    );
    const missing = [...new Map(bodies.filter((b) => !have.has(b.id)).map((b) => [b.id, b])).values()];
    if (!missing.length) return;
    const vectors = client.embed(missing.map((m) => m.body));
    const put = this.db.prepare("UPDATE text_bodies SET vector = ?, model = ? WHERE id = ?");
    missing.forEach((m, i) => {
      const vector = Buffer.from(vectors[i].buffer, vectors[i].byteOffset, vectors[i].byteLength);
      put.run(vector, client.model, m.id);
      if (this.db.inTransaction) this.unsettled.set(m.body, { vector, model: client.model });
    });
  }

  private vectors(model: string, ids: number[]): Map<number, Float32Array> {
    const out = new Map<number, Float32Array>();
    const get = this.db.prepare<unknown[], { vector: Buffer | null; model: string | null }>(
      "SELECT vector, model FROM text_bodies WHERE id = ?",
    );
    for (const id of ids) {
      const r = get.get(id);
      if (r?.vector && r.model === model)
        out.set(
          id,
          new Float32Array(
            r.vector.buffer.slice(r.vector.byteOffset, r.vector.byteOffset + r.vector.byteLength),
          ),
        );
    }
    return out;
  }
}

function toHit(r: HitRow, score: number): SearchHit {
  return { subjectId: r.subject_id, type: r.type, attr: r.attr, text: r.body, score };
}

function dot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
