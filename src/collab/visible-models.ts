import type { ModelsConfig } from "../models/index.js";

/**
 * The models agents may name in invoke_agent: every model the config names — the default model,
 * each profile's model, and each model a provider lists. A model the config never names cannot be
 * chosen by an agent (a provider that lists none contributes none).
 */
export function visibleModels(config: ModelsConfig): string[] {
  const out = new Set<string>();
  if (config.defaultModel) out.add(config.defaultModel);
  for (const p of Object.values(config.profiles)) if (p.model) out.add(p.model);
  for (const [id, provider] of Object.entries(config.providers)) {
    for (const model of Object.keys(provider.models ?? {})) out.add(`${id}/${model}`);
  }
  return [...out].sort();
}
