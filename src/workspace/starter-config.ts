/**
 * The `.nbook/config.json` a new workspace starts with: no provider yet, and a `"//"` note (the one
 * comment JSON has) saying how to connect one. The note survives `nbook models add`, which keeps the
 * rest of the file; the loader accepts it at the top level only, so the file stays strict JSON.
 */
export const STARTER_CONFIG = {
  "//": [
    "NeuroBook settings. Connect a model: nbook models add <preset>",
    "  presets: openai, anthropic, deepseek, qwen, moonshot, zhipu, openrouter, gemini, ollama, lmstudio, vllm",
    "then check it: nbook models test <provider>/<model> (nbook models list shows what is set up).",
    "API keys are never written here: a provider names the environment variable holding its key (apiKeyEnv).",
    "Every setting is in docs/models.md; a mistake is reported with its place in this file (a JSON Pointer).",
  ],
  providers: {},
};
