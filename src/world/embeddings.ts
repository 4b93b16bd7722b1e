import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads";
import { NbError } from "../core/errors.js";
import { parseModelsConfig } from "../models/config.js";
import { apiKeyEnvOf } from "../models/key-variables.js";

/** What the world's client needs: an OpenAI-compatible `/embeddings` endpoint, the key already read. */
interface HttpEmbeddingSettings {
  baseURL: string;
  model: string;
  apiKey?: string;
  dimensions: number;
  timeoutMs?: number;
}

/** Embeds texts synchronously; vectors are L2-normalised. */
export interface EmbeddingClient {
  readonly model: string;
  embed(texts: string[]): Float32Array[];
}

/**
 * The client for the workspace's `embedding` section (the one subject memory uses), or null when
 * there is none or it names a local model folder: the world API is synchronous and a local model
 * runs asynchronously, so world text search then stays keyword-only. A section that names a
 * provider which cannot be used is a `config_error`, never a quiet fall back.
 */
export function embeddingClientFromConfig(
  config: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
): EmbeddingClient | null {
  if (config.embedding === undefined || config.embedding === null) return null;
  const models = parseModelsConfig(config, ".nbook/config.json");
  const e = models.embedding;
  if (!e || e.folder !== undefined) return null;
  const id = e.provider as string;
  const provider = models.providers[id];
  if (!provider)
    throw new NbError("config_error", `embedding.provider "${id}" is not in .nbook/config.json "providers"`);
  const baseURL = provider.baseURL ?? (provider.kind === "openai" ? OPENAI_BASE_URL : undefined);
  if (!baseURL || (provider.kind !== "openai" && provider.kind !== "openai-compatible")) {
    throw new NbError(
      "config_error",
      `embedding.provider "${id}" is a ${provider.kind} provider, which has no embedding models`,
    );
  }
  const keyEnv = apiKeyEnvOf(provider);
  const apiKey = keyEnv ? env[keyEnv] : undefined;
  if (keyEnv && !apiKey) {
    throw new NbError(
      "config_error",
      `The embedding model's provider "${id}" needs its API key in the environment variable ${keyEnv}, which is not set`,
    );
  }
  return new HttpEmbeddingClient({
    baseURL,
    model: e.model as string,
    dimensions: e.dimensions,
    ...(apiKey ? { apiKey } : {}),
    ...(e.timeoutMs ? { timeoutMs: e.timeoutMs } : {}),
  });
}

const OPENAI_BASE_URL = "https://api.openai.com/v1";
const BATCH = 64;

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
export class HttpEmbeddingClient implements EmbeddingClient {
  readonly model: string;
  constructor(private readonly cfg: HttpEmbeddingSettings) {
    this.model = `${cfg.model}@${cfg.dimensions}`;
  }

  embed(texts: string[]): Float32Array[] {
    if (!texts.length) return [];
    const timeoutMs = this.cfg.timeoutMs ?? 30_000;
    const batches: string[][] = [];
    for (let i = 0; i < texts.length; i += BATCH) batches.push(texts.slice(i, i + BATCH));
    const flag = new SharedArrayBuffer(4);
    const { port1, port2 } = new MessageChannel();
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: { cfg: { ...this.cfg, timeoutMs }, batches, port: port2, flag },
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
