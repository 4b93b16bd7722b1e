import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads";
import { z } from "zod";
import { NbError } from "../core/errors.js";

/** The workspace config section `embedding` (an OpenAI-compatible `/embeddings` endpoint). */
export const embeddingConfigSchema = z.object({
  enabled: z.boolean().optional(),
  baseURL: z.string().url(),
  model: z.string().min(1),
  apiKey: z.string().optional(),
  dimensions: z.number().int().positive().optional(),
  timeoutMs: z.number().int().positive().optional(),
});
export type EmbeddingConfig = z.infer<typeof embeddingConfigSchema>;

/** Embeds texts synchronously; vectors are L2-normalised. */
export interface EmbeddingClient {
  readonly model: string;
  embed(texts: string[]): Float32Array[];
}

/** The configured client, or null when the workspace config has no usable `embedding` section. */
export function embeddingClientFromConfig(config: Record<string, unknown>): EmbeddingClient | null {
  const raw = config.embedding;
  if (raw === undefined || raw === null) return null;
  const r = embeddingConfigSchema.safeParse(raw);
  if (!r.success || r.data.enabled === false) return null;
  return new HttpEmbeddingClient(r.data);
}

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
  constructor(private readonly cfg: EmbeddingConfig) {
    this.model = cfg.dimensions ? `${cfg.model}@${cfg.dimensions}` : cfg.model;
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
