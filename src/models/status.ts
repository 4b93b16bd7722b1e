import { existsSync } from "node:fs";
import { relative } from "node:path";
import type { ModelsConfig, ProviderKind } from "./config.js";
import { apiKeyEnvOf } from "./key-env.js";
import type { Env } from "./providers.js";
import { type ModelRefSource, parseModelRef, selectModelRef } from "./reference.js";
import { DEFAULT_CONTEXT_WINDOW } from "./resolve.js";

/** Whether a provider's API key is available; never the key itself. */
export type KeyStatus = "set" | "missing" | "not_needed";

/** One configured provider as `nbook models list` shows it. */
export interface ProviderStatus {
  id: string;
  kind: ProviderKind;
  baseURL?: string;
  /** Script file, relative to the workspace root when inside it. */
  script?: string;
  apiKeyEnv?: string;
  key: KeyStatus;
  models: { ref: string; contextWindow: number; maxOutputTokens?: number }[];
}

/** The effective model of one profile, or why there is none. */
export interface ProfileModelStatus {
  profile: string;
  ref: string | null;
  source: ModelRefSource | null;
}

/** Everything `nbook models list` reports. */
export interface ModelsStatus {
  providers: ProviderStatus[];
  defaultModel: string | null;
  profiles: ProfileModelStatus[];
  /** Environment variables that configured providers name but that are not set. */
  missingEnv: string[];
  /** Settings that will fail when used (unknown provider in a reference, missing script file). */
  problems: string[];
}

/**
 * Describe the models config for people: providers, models, which key variables are missing,
 * and the model each given profile would use. Reads only whether variables are set.
 */
export function describeModels(
  config: ModelsConfig,
  env: Env,
  opts: { workspaceRoot?: string; profiles?: { key: string; defaultModel?: string }[] } = {},
): ModelsStatus {
  const problems: string[] = [];
  const providers = Object.entries(config.providers).map(([id, p]): ProviderStatus => {
    const keyEnv = apiKeyEnvOf(p);
    const row: ProviderStatus = {
      id,
      kind: p.kind,
      key: keyEnv ? (env[keyEnv] ? "set" : "missing") : "not_needed",
      models: Object.entries(p.models ?? {}).map(([m, limits]) => ({
        ref: `${id}/${m}`,
        contextWindow: limits.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
        ...(limits.maxOutputTokens ? { maxOutputTokens: limits.maxOutputTokens } : {}),
      })),
    };
    if (p.baseURL) row.baseURL = p.baseURL;
    if (keyEnv) row.apiKeyEnv = keyEnv;
    if (p.script) {
      row.script = opts.workspaceRoot ? displayPath(opts.workspaceRoot, p.script) : p.script;
      if (!existsSync(p.script)) problems.push(`providers.${id}.script: file not found (${row.script})`);
    }
    return row;
  });
  const checkRef = (setting: string, ref: string | undefined) => {
    if (!ref) return;
    const { providerId, modelId } = parseModelRef(ref);
    const p = config.providers[providerId];
    if (!p) problems.push(`${setting}: "${ref}" names no configured provider "${providerId}"`);
    else if (p.models && Object.keys(p.models).length > 0 && !p.models[modelId]) {
      problems.push(`${setting}: "${ref}": provider "${providerId}" declares no model "${modelId}"`);
    }
  };
  checkRef("defaultModel", config.defaultModel);
  for (const [key, v] of Object.entries(config.profiles)) checkRef(`profiles.${key}.model`, v.model);
  const profiles = (opts.profiles ?? []).map((p): ProfileModelStatus => {
    try {
      const { ref, source } = selectModelRef({ profileKey: p.key, profileDefault: p.defaultModel, config });
      return { profile: p.key, ref, source };
    } catch {
      return { profile: p.key, ref: null, source: null };
    }
  });
  const missingEnv = [
    ...new Set(providers.filter((p) => p.key === "missing").map((p) => p.apiKeyEnv!)),
  ].sort();
  return { providers, defaultModel: config.defaultModel ?? null, profiles, missingEnv, problems };
}

function displayPath(root: string, file: string): string {
  const rel = relative(root, file);
  return rel.startsWith("..") ? file : rel;
}
