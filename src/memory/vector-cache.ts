/** One source's vectors as a single matrix: row r (r < rows) is chunk `ids[r]`; ids ascend. */
export interface VectorMatrix {
  rows: number;
  ids: Int32Array;
  /** `rows` vectors one after the other; the arrays may be longer (room to grow). */
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

/** `m` with the rows of `more` (exactly sized, not empty) after its own: in place when there is room, else in arrays half as big again. */
function grow(m: VectorMatrix, more: VectorMatrix): VectorMatrix {
  const rows = m.rows + more.rows;
  const width = more.data.length / more.ids.length;
  let { ids, data } = m;
  if (rows > ids.length) {
    const capacity = Math.ceil(rows * 1.5);
    ids = new Int32Array(capacity);
    ids.set(m.ids.subarray(0, m.rows));
    data = new Float32Array(capacity * width);
    data.set(m.data.subarray(0, m.rows * width));
  }
  ids.set(more.ids.subarray(0, more.rows), m.rows);
  data.set(more.data.subarray(0, more.rows * width), m.rows * width);
  return { rows, ids, data };
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
  if (hit) {
    cache.delete(key);
    floats -= hit.matrix.data.length;
  }
  let matrix: VectorMatrix;
  if (hit?.version === version) {
    const old = hit.matrix;
    const more = loadAfter(old.rows ? old.ids[old.rows - 1]! : 0);
    matrix = more.rows ? grow(old, more) : old;
  } else matrix = load();
  put(key, version, matrix);
  return matrix;
}
