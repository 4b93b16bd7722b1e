import type { ModelsConfig } from "../config.js";
import type { Env } from "../providers.js";
import { apiEmbeddingProvider } from "./ai-sdk.js";
import type { EmbeddingConfig } from "./config.js";
import { EMBEDDING_DEFAULTS, embeddingEndpoint } from "./endpoint.js";
import { folderEmbeddingProvider } from "./onnx-folder.js";
import type { EmbeddingProvider } from "./provider.js";

/**
 * The embedding provider the config names, or null when it names none (search is then keyword
 * only). A provider that cannot be built (see embeddingEndpoint) is a `config_error`.
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
  return apiEmbeddingProvider({
    ...embeddingEndpoint(config, e, env),
    model: e.model!,
    dimensions: e.dimensions,
    batchSize,
    timeoutMs: e.timeoutMs ?? EMBEDDING_DEFAULTS.timeoutMs,
    maxRetries: e.maxRetries ?? EMBEDDING_DEFAULTS.maxRetries,
  });
}
