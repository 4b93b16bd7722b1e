import { type ConfigRoots, loadModelsConfig, type ProviderConfig, type ProviderKind } from "./config.js";

/** The key variable a provider of each kind reads when `apiKeyEnv` is not set (none for local servers). */
const DEFAULT_KEY_ENV: Record<ProviderKind, string | undefined> = {
  "openai-compatible": undefined,
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  scripted: undefined,
};

/** Name of the environment variable holding this provider's API key, if it needs one. */
export function apiKeyEnvOf(p: ProviderConfig): string | undefined {
  return p.apiKeyEnv ?? DEFAULT_KEY_ENV[p.kind];
}

/**
 * Every environment variable that may hold an API key in this workspace: the provider kinds'
 * defaults and each configured provider's variable. The workspace and project configs are read
 * apart, because a project provider that replaces a workspace one leaves the workspace key in the
 * environment all the same.
 */
export function apiKeyEnvNames(roots: ConfigRoots): Set<string> {
  const names = new Set(Object.values(DEFAULT_KEY_ENV).filter((n): n is string => n !== undefined));
  const layers: ConfigRoots[] = [{ workspaceRoot: roots.workspaceRoot }];
  if (roots.projectRoot) layers.push(roots);
  for (const layer of layers) {
    try {
      for (const p of Object.values(loadModelsConfig(layer).providers)) {
        const name = apiKeyEnvOf(p);
        if (name) names.add(name);
      }
    } catch {
      // An invalid config runs no model, so no session can be recorded with it; the defaults stay hidden.
    }
  }
  return names;
}
