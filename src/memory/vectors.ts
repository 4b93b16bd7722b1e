/** A vector as stored: its float32 values, little-endian, as a BLOB. */
export function vectorBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** A stored BLOB as float32 values (copied only when the bytes are not 4-byte aligned). */
export function blobVector(b: Uint8Array): Float32Array {
  if (b.byteOffset % 4 === 0) return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  return new Float32Array(new Uint8Array(b).buffer);
}

/** Cosine similarity of two unit vectors: their dot product. */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/**
 * The similarity below which a vector hit is dropped: the original's distance cut-off 1.15 between
 * unit vectors (L2), i.e. cosine 1 − 1.15²/2 ≈ 0.34. A medium match (cosine 0.55) is kept.
 */
export const MIN_SIMILARITY = 1 - (1.15 * 1.15) / 2;

/** The best `k` of (id, score) pairs, best first; a bounded insertion keeps it O(n·k) with small k. */
export class TopK {
  readonly ids: number[] = [];
  readonly scores: number[] = [];
  constructor(private readonly k: number) {}

  offer(id: number, score: number): void {
    const n = this.scores.length;
    if (n === this.k && score <= this.scores[n - 1]!) return;
    let i = n === this.k ? n - 1 : n;
    while (i > 0 && this.scores[i - 1]! < score) {
      this.scores[i] = this.scores[i - 1]!;
      this.ids[i] = this.ids[i - 1]!;
      i--;
    }
    this.scores[i] = score;
    this.ids[i] = id;
  }
}
