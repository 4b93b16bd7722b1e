import { statSync } from "node:fs";
import { basename, join } from "node:path";
import { NbError } from "../../core/errors.js";
import { checkedVectors, type EmbeddingProvider, type EmbedRole } from "./provider.js";

/** The optional dependency that runs a local ONNX model. */
const TRANSFORMERS = "@huggingface/transformers";

/** The part of `@huggingface/transformers` used here (typed locally: the package is optional). */
interface Transformers {
  env: {
    allowRemoteModels: boolean;
    allowLocalModels: boolean;
    useFSCache: boolean;
    useBrowserCache: boolean;
  };
  pipeline(
    task: "feature-extraction",
    model: string,
    options: { local_files_only: boolean; dtype: string },
  ): Promise<FeatureExtractor>;
}
type FeatureExtractor = (
  texts: string[],
  options: { pooling: "mean" | "cls"; normalize: boolean },
) => Promise<{ dims: number[]; data: Float32Array }>;

/** A local model folder: `config.json`, `tokenizer.json` (+ `tokenizer_config.json`), `onnx/model.onnx`. */
export interface FolderEmbeddingOptions {
  /** Absolute path of the folder. */
  folder: string;
  dimensions: number;
  pooling: "mean" | "cls";
  batchSize: number;
}

let loaded: Promise<Transformers> | null = null;

/** Load the optional dependency once, local files only; a clear `unsupported` error when it is not installed. */
function transformers(): Promise<Transformers> {
  loaded ??= (import(TRANSFORMERS) as Promise<Transformers>).then(
    (t) => {
      // Only the configured folder is read: nothing is downloaded, and no cache is written into node_modules.
      t.env.allowRemoteModels = false;
      t.env.allowLocalModels = true;
      t.env.useFSCache = false;
      t.env.useBrowserCache = false;
      return t;
    },
    (e: NodeJS.ErrnoException) => {
      loaded = null;
      if (e.code === "ERR_MODULE_NOT_FOUND" || e.code === "MODULE_NOT_FOUND") {
        throw new NbError(
          "unsupported",
          `embedding.folder needs the optional dependency ${TRANSFORMERS}, which is not installed (npm install ${TRANSFORMERS})`,
        );
      }
      throw new NbError("internal", `${TRANSFORMERS} could not be loaded: ${e.message}`);
    },
  );
  return loaded;
}

/** Loaded models by folder and file identity, so a process loads each model once. */
const models = new Map<string, Promise<FeatureExtractor>>();

/**
 * An embedding model run locally from a folder the user supplies, through `@huggingface/transformers`
 * (loaded on first use). Errors name the folder by its last segment, never by its host path.
 */
export function folderEmbeddingProvider(o: FolderEmbeddingOptions): EmbeddingProvider {
  const name = basename(o.folder);
  const label = `folder "${name}"`;
  const fail = (what: string) =>
    new NbError("config_error", `Embedding model ${label}: ${what.split(o.folder).join(name)}`);
  let stamp: string;
  try {
    const st = statSync(join(o.folder, "onnx", "model.onnx"));
    stamp = `${st.size}:${Math.trunc(st.mtimeMs)}`;
  } catch {
    throw fail("no onnx/model.onnx in the folder");
  }
  const id = `folder:${o.folder}#${stamp}:${o.pooling}@${o.dimensions}`;
  const model = (): Promise<FeatureExtractor> => {
    let m = models.get(id);
    if (!m) {
      m = transformers().then((t) =>
        t
          .pipeline("feature-extraction", o.folder, { local_files_only: true, dtype: "fp32" })
          .catch((e: Error) => {
            models.delete(id);
            throw fail(`cannot be loaded: ${e.message}`);
          }),
      );
      models.set(id, m);
    }
    return m;
  };
  return {
    id,
    dimensions: o.dimensions,
    label,
    async embed(texts: readonly string[], _role: EmbedRole): Promise<Float32Array[]> {
      if (texts.length === 0) return [];
      const extract = await model();
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += o.batchSize) {
        const batch = texts.slice(i, i + o.batchSize);
        let t: { dims: number[]; data: Float32Array };
        try {
          t = await extract(batch, { pooling: o.pooling, normalize: true });
        } catch (e) {
          throw fail(`failed to embed: ${(e as Error).message}`);
        }
        const width = t.dims[t.dims.length - 1] ?? 0;
        const rows = Array.from({ length: t.dims[0] ?? 0 }, (_, r) =>
          t.data.subarray(r * width, (r + 1) * width),
        );
        out.push(...checkedVectors(rows, batch.length, o.dimensions, label));
      }
      return out;
    },
  };
}
