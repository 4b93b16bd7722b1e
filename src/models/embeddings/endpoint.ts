import { NbError } from "../../core/errors.js";
import type { ModelsConfig, ProviderConfig } from "../config.js";
import { apiKeyEnvOf } from "../key-variables.js";
import type { Env } from "../providers.js";
import type { EmbeddingConfig } from "./config.js";

/** Defaults of the optional `embedding` settings. */
export const EMBEDDING_DEFAULTS = {
  batchSize: 64,
  timeoutMs: 30_000,
  maxRetries: 2,
  pooling: "mean",
} as const;

/** Where the OpenAI SDK sends requests when the provider sets no `baseURL`. */
export const OPENAI_URL = "https://api.openai.com/v1";

/** The configured provider an API embedding model runs at, and its key read from the environment. */
export interface EmbeddingEndpoint {
  providerId: string;
  provider: ProviderConfig & { kind: "openai" | "openai-compatible" };
  /** The provider's URL, or OpenAI's when an openai provider sets none. */
  baseURL: string;
  apiKey?: string;
  apiKeyEnv?: string;
}

/**
 * The endpoint of the API model an `embedding` section names (`provider` + `model`). A provider
 * that is not configured, of a kind without embedding models, or whose key variable is not set is a
 * `config_error`, never a quiet fall back to keywords.
 */
export function embeddingEndpoint(
  config: Pick<ModelsConfig, "providers">,
  e: EmbeddingConfig,
  env: Env,
): EmbeddingEndpoint {
  const providerId = e.provider!;
  const provider = config.providers[providerId];
  if (!provider) {
    throw new NbError(
      "config_error",
      `embedding.provider "${providerId}" is not in .nbook/config.json "providers"`,
      { details: { missing: `providers.${providerId}` } },
    );
  }
  if (provider.kind !== "openai" && provider.kind !== "openai-compatible") {
    throw new NbError(
      "config_error",
      `embedding.provider "${providerId}" is of kind ${provider.kind}, which has no embedding models (use openai or openai-compatible)`,
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
  return {
    providerId,
    provider: { ...provider, kind: provider.kind },
    // An openai-compatible provider always has a baseURL (the config schema requires it).
    baseURL: provider.baseURL ?? OPENAI_URL,
    ...(apiKey ? { apiKey } : {}),
    ...(apiKeyEnv ? { apiKeyEnv } : {}),
  };
}
