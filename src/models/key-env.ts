import { searchKeyBindings } from "../web/config.js";
import { type ConfigRoots, loadModelsConfig } from "./config.js";
import { apiKeyEnvOf, DEFAULT_KEY_ENV } from "./key-variables.js";

export { apiKeyEnvOf } from "./key-variables.js";

/**
 * Every environment variable that may hold an API key in this workspace: the provider kinds' and
 * web_search's defaults, each configured provider's variable and web_search's. The workspace and
 * project configs are read apart, because a project provider that replaces a workspace one leaves
 * the workspace key in the environment all the same.
 */
export function apiKeyEnvNames(roots: ConfigRoots): Set<string> {
  const names = new Set(Object.values(DEFAULT_KEY_ENV).filter((n): n is string => n !== undefined));
  for (const b of searchKeyBindings(undefined)) names.add(b.name);
  const layers: ConfigRoots[] = [{ workspaceRoot: roots.workspaceRoot }];
  if (roots.projectRoot) layers.push(roots);
  for (const layer of layers) {
    try {
      const config = loadModelsConfig(layer);
      for (const p of Object.values(config.providers)) {
        const name = apiKeyEnvOf(p);
        if (name) names.add(name);
      }
      for (const b of searchKeyBindings(config.web)) names.add(b.name);
    } catch {
      // An invalid config runs no model, so no session can be recorded with it; the defaults stay hidden.
    }
  }
  return names;
}
