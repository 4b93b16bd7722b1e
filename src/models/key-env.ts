import { type ConfigRoots, loadModelsConfig } from "./config.js";
import { apiKeyEnvOf, DEFAULT_KEY_ENV } from "./key-variables.js";

export { apiKeyEnvOf } from "./key-variables.js";

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
