import { NbError } from "../../core/errors.js";
import type { ModelsConfig } from "../../models/config.js";
import { apiKeyEnvOf } from "../../models/key-env.js";
import type { Env } from "../../models/providers.js";
import { apiEmbeddingProvider } from "./ai-sdk.js";
import type { EmbeddingConfig } from "./config.js";
import { folderEmbeddingProvider } from "./onnx-folder.js";
import type { EmbeddingProvider } from "./provider.js";

/** Defaults of the optional `embedding` settings. */
export const EMBEDDING_DEFAULTS = {
  batchSize: 64,
  timeoutMs: 30_000,
  maxRetries: 2,
  pooling: "mean",
} as const;

/**
 * The embedding provider the config names, or null when it names none (search is then keyword
 * only). A provider that cannot be built — an unknown provider id, a key variable that is not set —
 * is a `config_error`, never a quiet fall back to keywords.
 */
export function embeddingProvider(
  config: Pick<ModelsConfig, "providers" | "embedding">,
  env: Env,
): EmbeddingProvider | null {
  const e = config.embedding;
  if (!e) return null;
  return withPrefixes(baseProvider(config, e, env), e.queryPrefix ?? "", e.documentPrefix ?? "");
}

/** A provider that puts the configured prefixes before queries and stored texts (part of its vector space). */
function withPrefixes(p: EmbeddingProvider, query: string, document: string): EmbeddingProvider {
  if (query === "" && document === "") return p;
  return {
    ...p,
    id: `${p.id}#query=${JSON.stringify(query)}#document=${JSON.stringify(document)}`,
    embed: (texts, role) =>
      p.embed(
        texts.map((t) => (role === "query" ? query : document) + t),
        role,
      ),
  };
}

function baseProvider(
  config: Pick<ModelsConfig, "providers">,
  e: EmbeddingConfig,
  env: Env,
): EmbeddingProvider {
  const batchSize = e.batchSize ?? EMBEDDING_DEFAULTS.batchSize;
  if (e.folder !== undefined) {
    return folderEmbeddingProvider({
      folder: e.folder,
      dimensions: e.dimensions,
      pooling: e.pooling ?? EMBEDDING_DEFAULTS.pooling,
      batchSize,
    });
  }
  const providerId = e.provider!;
  const provider = config.providers[providerId];
  if (!provider) {
    throw new NbError(
      "config_error",
      `embedding.provider "${providerId}" is not in .nbook/config.json "providers"`,
      { details: { missing: `providers.${providerId}` } },
    );
  }
  const apiKeyEnv = apiKeyEnvOf(provider);
  const apiKey = apiKeyEnv ? env[apiKeyEnv] : undefined;
  if (apiKeyEnv && !apiKey) {
    throw new NbError(
      "config_error",
      `The embedding model's provider "${providerId}" needs its API key in the environment variable ${apiKeyEnv}, which is not set`,
      { details: { provider: providerId, missingEnv: apiKeyEnv } },
    );
  }
  return apiEmbeddingProvider({
    providerId,
    provider,
    model: e.model!,
    dimensions: e.dimensions,
    ...(apiKey ? { apiKey } : {}),
    ...(apiKeyEnv ? { apiKeyEnv } : {}),
    batchSize,
    timeoutMs: e.timeoutMs ?? EMBEDDING_DEFAULTS.timeoutMs,
    maxRetries: e.maxRetries ?? EMBEDDING_DEFAULTS.maxRetries,
  });
}
