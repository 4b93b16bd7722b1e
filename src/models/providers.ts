import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { NbError } from "../core/errors.js";
import { type ProviderConfig, providerTimeouts, toolDialectOf } from "./config.js";
import { apiKeyEnvOf } from "./key-env.js";
import { providerLabel, withProviderLabel } from "./provider-errors.js";
import { withKeyRedacted } from "./redact.js";
import { type ScriptedModelOptions, scriptedModelFromFile } from "./scripted/model.js";
import { withTimeouts } from "./timeouts.js";
import { withToolDialect } from "./tool-dialect.js";

/** Where the SDKs send requests when a provider sets no `baseURL`. */
const DEFAULT_BASE_URL: Partial<Record<ProviderConfig["kind"], string>> = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com/v1",
};

/** Environment variables the models layer reads (API keys only). */
export type Env = Readonly<Record<string, string | undefined>>;

/** How to build a provider's model beyond its config. */
export interface ProviderModelOptions {
  /** Where a `scripted` provider's script starts (to resume a session in a new process). */
  scriptStartAt?: ScriptedModelOptions["startAt"];
}

/**
 * Build the AI SDK language model for `modelId` on a configured provider. The API key is read
 * from `env` here and handed to the SDK only; it is never returned, stored or printed, and it is
 * masked in any error the provider raises. Network providers get the configured timeouts, and
 * their errors name the provider kind, the host and the HTTP status.
 */
export function createProviderModel(
  providerId: string,
  p: ProviderConfig,
  modelId: string,
  env: Env,
  opts: ProviderModelOptions = {},
): LanguageModelV3 {
  const keyEnv = apiKeyEnvOf(p);
  const apiKey = keyEnv ? env[keyEnv] : undefined;
  if (keyEnv && !apiKey) {
    throw new NbError(
      "config_error",
      `Provider "${providerId}" needs its API key in the environment variable ${keyEnv}, which is not set`,
      { details: { provider: providerId, missingEnv: keyEnv } },
    );
  }
  const model = withToolDialect(providerModel(providerId, p, modelId, apiKey, opts), toolDialectOf(p));
  const guarded = p.kind === "scripted" ? model : withNetworkGuards(model, providerId, p);
  return apiKey ? withKeyRedacted(guarded, apiKey) : guarded;
}

/** Timeouts and labelled errors for a model reached over the network. */
function withNetworkGuards(model: LanguageModelV3, providerId: string, p: ProviderConfig): LanguageModelV3 {
  const url = p.baseURL ?? DEFAULT_BASE_URL[p.kind] ?? "";
  // Labelled inside the timeouts, whose own errors carry the label already.
  return withTimeouts(withProviderLabel(model, p.kind, url), providerTimeouts(p), {
    label: providerLabel(p.kind, url),
    url,
    setting: `providers.${providerId}.timeouts`,
  });
}

function providerModel(
  providerId: string,
  p: ProviderConfig,
  modelId: string,
  apiKey: string | undefined,
  opts: ProviderModelOptions,
): LanguageModelV3 {
  switch (p.kind) {
    case "openai-compatible":
      return createOpenAICompatible({
        name: providerId,
        baseURL: p.baseURL!,
        apiKey,
        headers: p.headers,
        includeUsage: true,
      }).chatModel(modelId);
    case "openai":
      return createOpenAI({ name: providerId, baseURL: p.baseURL, apiKey, headers: p.headers })(modelId);
    case "anthropic":
      return createAnthropic({ name: providerId, baseURL: p.baseURL, apiKey, headers: p.headers })(modelId);
    case "scripted":
      return scriptedModelFromFile(p.script!, { modelId, startAt: opts.scriptStartAt });
  }
}
