import { NbError } from "../../core/errors.js";

/** What a text is embedded as: some models embed a question differently from a stored passage. */
export type EmbedRole = "query" | "document";

/** An embedding model behind one small interface (an API model, a local model folder). */
export interface EmbeddingProvider {
  /**
   * The vector space: model, dimensions and where it runs. Stored with the vectors, so vectors of
   * another model are never compared with this one's.
   */
  readonly id: string;
  readonly dimensions: number;
  /** How errors name the model: `<model> at <kind> (<host>)`, never a key or a host path. */
  readonly label: string;
  /**
   * One L2-normalised vector of `dimensions` values per text, in order. Any failure (the service,
   * a wrong count or length, a zero vector) throws an NbError naming the model: never a partial answer.
   */
  embed(texts: readonly string[], role: EmbedRole): Promise<Float32Array[]>;
}

/**
 * Check a model's raw answer and normalise it: as many vectors as texts, each of `dimensions`
 * finite values and not all zero. A violation is an `io_error` naming the model.
 */
export function checkedVectors(
  raw: ArrayLike<ArrayLike<number>>,
  count: number,
  dimensions: number,
  label: string,
): Float32Array[] {
  const fail = (what: string) => new NbError("io_error", `Embedding model ${label}: ${what}`);
  if (raw.length !== count) throw fail(`returned ${raw.length} vectors for ${count} texts`);
  const out: Float32Array[] = [];
  for (let i = 0; i < count; i++) {
    const v = raw[i]!;
    if (v.length !== dimensions) {
      throw fail(`returned a vector of ${v.length} values, but embedding.dimensions is ${dimensions}`);
    }
    const f = Float32Array.from(v);
    let norm = 0;
    for (let j = 0; j < f.length; j++) {
      const x = f[j]!;
      if (!Number.isFinite(x)) throw fail(`returned a value that is not a finite number (vector ${i + 1})`);
      norm += x * x;
    }
    if (norm === 0) throw fail(`returned an all-zero vector (vector ${i + 1})`);
    const inv = 1 / Math.sqrt(norm);
    for (let j = 0; j < f.length; j++) f[j]! *= inv;
    out.push(f);
  }
  return out;
}

/** A key as errors may show it: the variable it came from and at most its last four characters. */
export function maskedKey(envName: string, key: string): string {
  return `${envName}=${key.length >= 16 ? `…${key.slice(-4)}` : "…"}`;
}
