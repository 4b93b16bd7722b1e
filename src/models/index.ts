/**
 * Model providers: config (`.nbook/config.json`, project override), model references
 * `<providerId>/<modelId>`, AI SDK v6 providers, and the offline scripted model.
 */
export {
  type AgentSettings,
  agentSettings,
  type ConfigRoots,
  configStamp,
  DEFAULT_COMPACTION_KEEP_RECENT,
  DEFAULT_COMPACTION_THRESHOLD,
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_STEPS,
  loadModelsConfig,
  type ModelsConfig,
  ModelsConfigSchema,
  mergeModelsConfig,
  PROVIDER_KINDS,
  type ProviderConfig,
  ProviderConfigSchema,
  type ProviderKind,
  parseModelsConfig,
} from "./config.js";
export { apiKeyEnvNames, apiKeyEnvOf } from "./key-env.js";
export { createProviderModel, type Env, type ProviderModelOptions } from "./providers.js";
export {
  MODEL_REF,
  type ModelRef,
  type ModelRefSource,
  type ModelSelection,
  parseModelRef,
  selectModelRef,
} from "./reference.js";
export {
  DEFAULT_CONTEXT_WINDOW,
  type ResolvedModel,
  resolveModel,
  resolvePinnedModel,
  resolveSessionModel,
  SCRIPT_PROVIDER,
  type SessionModel,
  type SessionModelRequest,
} from "./resolve.js";
export { createModelResolver, type ModelResolverOptions, type SessionModelResolver } from "./resolver.js";
export {
  type ParsedScript,
  parseScript,
  readScriptFile,
  type ScriptedToolCall,
  type ScriptedTurn,
  type ScriptFile,
  ScriptFileSchema,
} from "./scripted/format.js";
export {
  ScriptedLanguageModel,
  type ScriptedModelOptions,
  scriptedModel,
  scriptedModelFromFile,
} from "./scripted/model.js";
export {
  describeModels,
  type KeyStatus,
  type ModelsStatus,
  type ProfileModelStatus,
  type ProviderStatus,
} from "./status.js";
