import type { EmbeddingProvider } from "../models/embeddings/provider.js";
import type { Source } from "./files.js";
import type { SubjectIndex } from "./search-index.js";
import { MIN_SIMILARITY } from "./vectors.js";

/** The constant of reciprocal rank fusion: a hit at rank r of a list scores 1 / (RRF_K + r). */
export const RRF_K = 60;

/** Candidates each list contributes before fusion, as in the original: 4× the limit, at most 80. */
export function fetchLimit(limit: number): number {
  return Math.min(Math.max(limit * 4, limit), 80);
}

/**
 * Reciprocal rank fusion of ranked id lists: each id scores the sum of 1 / (RRF_K + rank) over the
 * lists that hold it (rank from 1). Best first; ties keep the order of first appearance.
 */
export function fuseRanks(lists: readonly (readonly number[])[], limit: number): number[] {
  const score = new Map<number, number>();
  for (const list of lists) {
    list.forEach((id, i) => {
      score.set(id, (score.get(id) ?? 0) + 1 / (RRF_K + i + 1));
    });
  }
  return [...score.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([id]) => id);
}

/**
 * Embed the chunks of a source that have no vector yet (only those: vectors are keyed by content
 * hash) and store them; returns how many were embedded.
 */
export async function embedMissing(
  index: SubjectIndex,
  subject: string,
  source: Source,
  provider: EmbeddingProvider,
): Promise<number> {
  const { missing, upTo } = index.missingVectors(subject, source, provider.id);
  const vectors = await provider.embed(
    missing.map((m) => m.text),
    "document",
  );
  index.storeVectors(
    subject,
    source,
    provider.id,
    upTo,
    missing.map((m, i) => ({ hash: m.hash, vector: vectors[i]! })),
  );
  return missing.length;
}

/**
 * Hybrid retrieval in one subject's source: the keyword ranking and the vector ranking (chunks
 * within the distance cut-off of the query's unit vector `q`) fused by reciprocal rank. Both
 * rankings see only this subject's chunks. Returns chunk ids, best first.
 */
export function hybridIds(
  index: SubjectIndex,
  subject: string,
  source: Source,
  query: string,
  q: Float32Array,
  limit: number,
): number[] {
  const k = fetchLimit(limit);
  const keyword = index.keywordIds(subject, source, query, k);
  const vector = index.nearest(subject, source, q, k, MIN_SIMILARITY).map((h) => h.id);
  return fuseRanks([keyword, vector], limit);
}
