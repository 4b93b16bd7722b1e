import { basename } from "node:path";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { NbError } from "../core/errors.js";
import { type ConfigRoots, loadModelsConfig, type ModelsConfig, type ProviderKind } from "./config.js";
import { createProviderModel, type Env, type ProviderModelOptions } from "./providers.js";
import { type ModelRefSource, parseModelRef, selectModelRef } from "./reference.js";
import { type ScriptedModelOptions, scriptedModelFromFile } from "./scripted/model.js";

/** Provider id of a `--script` model's reference (what a session pins for it). */
export const SCRIPT_PROVIDER = "scripted";

/** Context window assumed when neither the config nor the caller names one. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

/** A model ready to call, with what the loop needs to know about it. */
export interface ResolvedModel {
  model: LanguageModelV3;
  /** The reference `<providerId>/<modelId>` (what a session pins). */
  ref: string;
  providerId: string;
  modelId: string;
  kind: ProviderKind;
  contextWindow: number;
  maxOutputTokens?: number;
}

/**
 * Resolve a model reference against the config: `config_error` when the provider is not
 * configured, the model is not among the provider's declared models, or its API key variable is unset.
 */
export function resolveModel(
  ref: string,
  config: Pick<ModelsConfig, "providers">,
  env: Env,
  opts: ProviderModelOptions = {},
): ResolvedModel {
  const { providerId, modelId } = parseModelRef(ref);
  const provider = config.providers[providerId];
  if (!provider) {
    const known = Object.keys(config.providers);
    throw new NbError(
      "config_error",
      `Model "${ref}": no provider "${providerId}" in .nbook/config.json "providers"` +
        (known.length ? ` (configured: ${known.join(", ")})` : " (none configured)"),
      { details: { missing: `providers.${providerId}` } },
    );
  }
  const declared = provider.models;
  if (declared && Object.keys(declared).length > 0 && !declared[modelId]) {
    throw new NbError(
      "config_error",
      `Model "${ref}": provider "${providerId}" declares no model "${modelId}" (declared: ${Object.keys(declared).join(", ")})`,
      { details: { missing: `providers.${providerId}.models.${modelId}` } },
    );
  }
  const limits = declared?.[modelId];
  const out: ResolvedModel = {
    model: createProviderModel(providerId, provider, modelId, env, opts),
    ref,
    providerId,
    modelId,
    kind: provider.kind,
    contextWindow: limits?.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
  };
  if (limits?.maxOutputTokens) out.maxOutputTokens = limits.maxOutputTokens;
  return out;
}

/** What a session or one invocation asks for. */
export interface SessionModelRequest extends ConfigRoots {
  profileKey: string;
  /** The profile definition's own `defaultModel`. */
  profileDefault?: string | null;
  /** `--model` for one invocation. */
  override?: string | null;
  /** A session's pinned reference; used when there is no override. */
  pinned?: string | null;
  /** `--script <file>`: a scripted model, no config needed. */
  script?: string | null;
  /** Context window to report for a `--script` model (default 128,000). */
  scriptContextWindow?: number;
  /** Where a `--script` model starts (see `ScriptedModelOptions.startAt`). */
  scriptStartAt?: ScriptedModelOptions["startAt"];
  env?: Env;
}

/** A resolved model plus where its reference came from. */
export interface SessionModel extends ResolvedModel {
  source: ModelRefSource | "pinned" | "script";
}

/**
 * The model for a session run: `--script` > `--model` > the session's pinned reference > config and
 * profile defaults (see `selectModelRef`). Config is only read when needed.
 */
export function resolveSessionModel(req: SessionModelRequest): SessionModel {
  if (req.script) {
    const model = scriptedModelFromFile(req.script, { startAt: req.scriptStartAt });
    return {
      model,
      ref: `${SCRIPT_PROVIDER}/${basename(req.script)}`,
      providerId: SCRIPT_PROVIDER,
      modelId: model.modelId,
      kind: "scripted",
      contextWindow: req.scriptContextWindow ?? DEFAULT_CONTEXT_WINDOW,
      source: "script",
    };
  }
  const config = loadModelsConfig(req);
  const env = req.env ?? process.env;
  if (!req.override && req.pinned) return resolvePinnedModel(req.pinned, config, env);
  const { ref, source } = selectModelRef({
    override: req.override,
    profileKey: req.profileKey,
    profileDefault: req.profileDefault,
    config,
  });
  return { ...resolveModel(ref, config, env), source };
}

/** Resolve a session's pinned reference; a `--script` session without `--script` gets a hint. */
export function resolvePinnedModel(
  pinned: string,
  config: Pick<ModelsConfig, "providers">,
  env: Env,
  opts: ProviderModelOptions = {},
): SessionModel {
  if (pinned.startsWith(`${SCRIPT_PROVIDER}/`) && !config.providers[SCRIPT_PROVIDER]) {
    throw new NbError(
      "config_error",
      `This session ran on the scripted model "${pinned}": pass --script <file> to continue it, or --model <providerId>/<modelId> to switch`,
      { details: { missing: "script" } },
    );
  }
  return { ...resolveModel(pinned, config, env, opts), source: "pinned" };
}
