import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { APICallError, type EmbeddingModelV3 } from "@ai-sdk/provider";
import { embed, embedMany, RetryError } from "ai";
import { NbError } from "../../core/errors.js";
import { providerLabel } from "../provider-errors.js";
import { REDACTED } from "../redact.js";
import type { EmbeddingEndpoint } from "./endpoint.js";
import { checkedVectors, type EmbeddingProvider, type EmbedRole, maskedKey } from "./provider.js";

/** An API embedding model at its endpoint. */
export interface ApiEmbeddingOptions extends EmbeddingEndpoint {
  model: string;
  dimensions: number;
  batchSize: number;
  timeoutMs: number;
  maxRetries: number;
}

function sdkModel(o: ApiEmbeddingOptions): EmbeddingModelV3 {
  const p = o.provider;
  const settings = { name: o.providerId, baseURL: p.baseURL, apiKey: o.apiKey, headers: p.headers };
  return p.kind === "openai-compatible"
    ? createOpenAICompatible({ ...settings, baseURL: o.baseURL }).embeddingModel(o.model)
    : createOpenAI(settings).embedding(o.model);
}

/**
 * The failure of an embedding request as one loud error: the model, the host, the HTTP status or
 * the timeout, and the key masked. It says that search does not fall back to keywords.
 */
function embeddingError(e: unknown, o: ApiEmbeddingOptions, label: string): NbError {
  const cause = RetryError.isInstance(e) ? e.lastError : e;
  const scrub = (s: string) => (o.apiKey ? s.split(o.apiKey).join(REDACTED) : s);
  const key = o.apiKeyEnv
    ? `; key ${o.apiKey ? maskedKey(o.apiKeyEnv, o.apiKey) : `${o.apiKeyEnv} (unset)`}`
    : "";
  const tail = `${key}. Subject memory search does not fall back to keywords: fix the service or remove "embedding" from .nbook/config.json`;
  if (cause instanceof Error && (cause.name === "TimeoutError" || cause.name === "AbortError")) {
    return new NbError("timeout", `Embedding model ${label}: no answer within ${o.timeoutMs} ms${tail}`);
  }
  if (APICallError.isInstance(cause)) {
    const status = cause.statusCode === undefined ? "" : `HTTP ${cause.statusCode} `;
    const text = scrub(cause.message.split("\n")[0]!.trim()).slice(0, 200);
    return new NbError("io_error", `Embedding model ${label} failed: ${status}${text}${tail}`, {
      details: { statusCode: cause.statusCode },
    });
  }
  const msg = cause instanceof Error ? cause.message : String(cause);
  return new NbError("io_error", `Embedding model ${label} failed: ${scrub(msg).slice(0, 200)}${tail}`);
}

/**
 * An embedding model reached through the AI SDK (`embed` / `embedMany`) on a configured provider
 * of kind openai-compatible (most hosted and local servers) or openai. `dimensions` is always sent.
 */
export function apiEmbeddingProvider(o: ApiEmbeddingOptions): EmbeddingProvider {
  const model = sdkModel(o);
  const url = o.baseURL;
  const label = `"${o.model}" at ${providerLabel(o.provider.kind, url)}`;
  const providerOptions = {
    openaiCompatible: { dimensions: o.dimensions },
    openai: { dimensions: o.dimensions },
  };
  const call = async <T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    try {
      return await run(AbortSignal.timeout(o.timeoutMs));
    } catch (e) {
      throw embeddingError(e, o, label);
    }
  };
  return {
    id: `api:${url.replace(/\/+$/, "")}#${o.model}@${o.dimensions}`,
    dimensions: o.dimensions,
    label,
    async embed(texts: readonly string[], role: EmbedRole): Promise<Float32Array[]> {
      if (texts.length === 0) return [];
      if (role === "query" && texts.length === 1) {
        const r = await call((abortSignal) =>
          embed({ model, value: texts[0]!, maxRetries: o.maxRetries, abortSignal, providerOptions }),
        );
        return checkedVectors([r.embedding], 1, o.dimensions, label);
      }
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += o.batchSize) {
        const batch = texts.slice(i, i + o.batchSize);
        const r = await call((abortSignal) =>
          embedMany({ model, values: batch, maxRetries: o.maxRetries, abortSignal, providerOptions }),
        );
        out.push(...checkedVectors(r.embeddings, batch.length, o.dimensions, label));
      }
      return out;
    },
  };
}
