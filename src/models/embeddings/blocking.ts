import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads";
import { NbError } from "../../core/errors.js";
import type { TextEmbedder } from "../../world/search.js";
import { parseModelsConfig } from "../config.js";
import type { Env } from "../providers.js";
import { EMBEDDING_DEFAULTS, embeddingEndpoint } from "./endpoint.js";

/** What the blocking client needs: an OpenAI-compatible `/embeddings` endpoint, the key already read. */
interface HttpEmbeddingSettings {
  baseURL: string;
  model: string;
  apiKey?: string;
  dimensions: number;
  timeoutMs: number;
}

/**
 * The synchronous embedder of the workspace's `embedding` section (the one subject memory uses),
 * for World search, or null when there is none or it names a local model folder: the World API is
 * synchronous and a local model runs asynchronously, so World text search then stays keyword-only.
 * A section naming a provider that cannot be used is a `config_error` (see embeddingEndpoint).
 */
export function blockingEmbedder(
  config: Record<string, unknown>,
  env: Env = process.env,
): TextEmbedder | null {
  if (config.embedding === undefined || config.embedding === null) return null;
  const models = parseModelsConfig(config, ".nbook/config.json");
  const e = models.embedding;
  if (!e || e.folder !== undefined) return null;
  const endpoint = embeddingEndpoint(models, e, env);
  return new HttpEmbeddingClient({
    baseURL: endpoint.baseURL,
    model: e.model!,
    dimensions: e.dimensions,
    ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
    timeoutMs: e.timeoutMs ?? EMBEDDING_DEFAULTS.timeoutMs,
  });
}

const BATCH = EMBEDDING_DEFAULTS.batchSize;

// Runs in a worker: one POST per batch, result posted back, then the waiting thread is woken.
const WORKER = `
const { workerData } = require("node:worker_threads");
const { cfg, batches, port, flag } = workerData;
const signal = new Int32Array(flag);
(async () => {
  try {
    const out = [];
    for (const input of batches) {
      const body = { model: cfg.model, input };
      if (cfg.dimensions) body.dimensions = cfg.dimensions;
      const res = await fetch(cfg.baseURL.replace(/\\/+$/, "") + "/embeddings", {
        method: "POST",
        headers: { "content-type": "application/json", ...(cfg.apiKey ? { authorization: "Bearer " + cfg.apiKey } : {}) },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(cfg.timeoutMs),
      });
      if (!res.ok) throw new Error("embedding service answered HTTP " + res.status);
      const json = await res.json();
      const data = (json && json.data) || [];
      if (data.length !== input.length) throw new Error("embedding service returned " + data.length + " vectors for " + input.length + " texts");
      for (const d of data) out.push(d.embedding);
    }
    port.postMessage({ ok: true, vectors: out });
  } catch (e) {
    port.postMessage({ ok: false, error: String(e && e.message || e) });
  }
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
})();
`;

/**
 * OpenAI-compatible client made synchronous (the world API is synchronous, also inside the
 * sandbox): a worker thread does the HTTP calls while this thread waits on an Atomics flag.
 */
class HttpEmbeddingClient implements TextEmbedder {
  readonly model: string;
  constructor(private readonly cfg: HttpEmbeddingSettings) {
    this.model = `${cfg.model}@${cfg.dimensions}`;
  }

  embed(texts: string[]): Float32Array[] {
    if (!texts.length) return [];
    const { timeoutMs } = this.cfg;
    const batches: string[][] = [];
    for (let i = 0; i < texts.length; i += BATCH) batches.push(texts.slice(i, i + BATCH));
    const flag = new SharedArrayBuffer(4);
    const { port1, port2 } = new MessageChannel();
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: { cfg: this.cfg, batches, port: port2, flag },
      transferList: [port2],
    });
    try {
      const waited = Atomics.wait(new Int32Array(flag), 0, 0, timeoutMs * batches.length + 5_000);
      const msg = receiveMessageOnPort(port1)?.message as
        | { ok: boolean; vectors?: number[][]; error?: string }
        | undefined;
      if (waited === "timed-out" || !msg) throw new NbError("timeout", "embedding request timed out");
      if (!msg.ok) throw new NbError("io_error", `embedding request failed: ${msg.error}`);
      return (msg.vectors ?? []).map(normalise);
    } finally {
      void worker.terminate();
      port1.close();
    }
  }
}

function normalise(v: number[]): Float32Array {
  const out = Float32Array.from(v);
  let n = 0;
  for (const x of out) n += x * x;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < out.length; i++) out[i] /= n;
  return out;
}
