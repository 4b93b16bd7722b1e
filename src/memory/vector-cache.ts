/** One source's vectors as a single matrix: row r is chunk `ids[r]`; ids ascend. */
export interface VectorMatrix {
  ids: Int32Array;
  data: Float32Array;
}

/** Floats kept at most across all cached matrices (128 MB). */
const MAX_FLOATS = 32 * 1024 * 1024;

const cache = new Map<string, { version: string; matrix: VectorMatrix }>();
let floats = 0;

function put(key: string, version: string, matrix: VectorMatrix): void {
  if (matrix.data.length > MAX_FLOATS) return;
  for (const [k, old] of cache) {
    if (floats + matrix.data.length <= MAX_FLOATS) break;
    cache.delete(k);
    floats -= old.matrix.data.length;
  }
  cache.set(key, { version, matrix });
  floats += matrix.data.length;
}

/**
 * The matrix of `key` at `version`, kept across searches: reading 10,000 vectors out of SQLite
 * costs far more than comparing them, so a search with stored vectors scans memory. A version
 * changes when chunks are removed (or the model changes); chunks added since the matrix was read
 * have higher ids, so `loadAfter(lastId)` reads only those and the matrix grows. The least recently
 * used matrices go first when the cache is full.
 */
export function cachedMatrix(
  key: string,
  version: string,
  load: () => VectorMatrix,
  loadAfter: (lastId: number) => VectorMatrix,
): VectorMatrix {
  const hit = cache.get(key);
  let matrix: VectorMatrix;
  if (hit) {
    cache.delete(key);
    floats -= hit.matrix.data.length;
  }
  if (hit?.version === version) {
    const old = hit.matrix;
    const more = loadAfter(old.ids.length ? old.ids[old.ids.length - 1]! : 0);
    if (more.ids.length === 0) matrix = old;
    else {
      const ids = new Int32Array(old.ids.length + more.ids.length);
      ids.set(old.ids);
      ids.set(more.ids, old.ids.length);
      const data = new Float32Array(old.data.length + more.data.length);
      data.set(old.data);
      data.set(more.data, old.data.length);
      matrix = { ids, data };
    }
  } else matrix = load();
  put(key, version, matrix);
  return matrix;
}
