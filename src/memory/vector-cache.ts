/** One source's vectors as a single matrix: row r is chunk `ids[r]`. */
export interface VectorMatrix {
  ids: Int32Array;
  data: Float32Array;
}

/** Floats kept at most across all cached matrices (128 MB). */
const MAX_FLOATS = 32 * 1024 * 1024;

const cache = new Map<string, { version: string; matrix: VectorMatrix }>();
let floats = 0;

/**
 * The matrix of `key` at `version`, loaded once and kept while the version stays the same: reading
 * 10,000 vectors out of SQLite costs far more than comparing them, so a search with stored vectors
 * only scans memory. The least recently used matrices go first when the cache is full.
 */
export function cachedMatrix(key: string, version: string, load: () => VectorMatrix): VectorMatrix {
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    if (hit.version === version) {
      cache.set(key, hit);
      return hit.matrix;
    }
    floats -= hit.matrix.data.length;
  }
  const matrix = load();
  if (matrix.data.length > MAX_FLOATS) return matrix;
  for (const [k, old] of cache) {
    if (floats + matrix.data.length <= MAX_FLOATS) break;
    cache.delete(k);
    floats -= old.matrix.data.length;
  }
  cache.set(key, { version, matrix });
  floats += matrix.data.length;
  return matrix;
}
