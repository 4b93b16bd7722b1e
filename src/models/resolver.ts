import { type ConfigRoots, configStamp, loadModelsConfig, type ModelsConfig } from "./config.js";
import type { Env } from "./providers.js";
import { selectModelRef } from "./reference.js";
import { resolveModel, resolvePinnedModel, resolveSessionModel, type SessionModel } from "./resolve.js";
import { ScriptedLanguageModel, type ScriptedModelOptions } from "./scripted/model.js";

/** How a resolver is set up for one process (one CLI invocation, one server). */
export interface ModelResolverOptions extends ConfigRoots {
  env?: Env;
  /** `--script <file>`: every call gets the same scripted model, no config read. */
  script?: string | null;
  scriptContextWindow?: number;
  /**
   * Where a scripted model (`--script`, or a configured `scripted` provider) starts: the model calls
   * a session already made, to continue it in a new process.
   */
  scriptStartAt?: ScriptedModelOptions["startAt"];
  /** `--model` for this invocation: wins over any pinned reference. */
  override?: string | null;
  /** A profile definition's own `defaultModel`. */
  profileDefault?: (profileKey: string) => string | null | undefined;
}

/**
 * Resolve the model for a run: `ref` is the session's pinned reference, if any; `sessionId` the
 * session that calls it (a scripted model answers it from that session's or profile's turns).
 */
export type SessionModelResolver = (
  ref: string | undefined,
  profileKey: string,
  sessionId?: string,
) => SessionModel;

/**
 * A resolver that hands out one model instance per reference, so a scripted model keeps its place
 * in the script across runs of the same process (and each session calls it as itself, for scripts
 * with turns keyed by profile or session). The config is read again when its files change, so a
 * running `nbook serve` or `nbook chat` uses an edited provider from its next run on; an invalid
 * edit fails that run with the config error and is read again at the next.
 */
export function createModelResolver(opts: ModelResolverOptions): SessionModelResolver {
  let scripted: SessionModel | undefined;
  let config: ModelsConfig | undefined;
  let stamp: string | undefined;
  const cache = new Map<string, SessionModel>();
  const currentConfig = (): ModelsConfig => {
    const now = configStamp(opts);
    if (!config || now !== stamp) {
      config = loadModelsConfig(opts);
      stamp = now;
      cache.clear();
    }
    return config;
  };
  return (pinned, profileKey, sessionId) => {
    const resolved = resolve(pinned, profileKey);
    return resolved.model instanceof ScriptedLanguageModel
      ? { ...resolved, model: resolved.model.forCaller({ profileKey, sessionId }) }
      : resolved;
  };

  function resolve(pinned: string | undefined, profileKey: string): SessionModel {
    if (opts.script) {
      scripted ??= resolveSessionModel({
        workspaceRoot: opts.workspaceRoot,
        profileKey,
        script: opts.script,
        scriptContextWindow: opts.scriptContextWindow,
        scriptStartAt: opts.scriptStartAt,
      });
      return scripted;
    }
    const config = currentConfig();
    const env = opts.env ?? process.env;
    const chosen =
      !opts.override && pinned
        ? { ref: pinned, source: "pinned" as const }
        : selectModelRef({
            override: opts.override,
            profileKey,
            profileDefault: opts.profileDefault?.(profileKey),
            config,
          });
    const cached = cache.get(chosen.ref);
    if (cached) return { ...cached, source: chosen.source };
    const build = { scriptStartAt: opts.scriptStartAt };
    const resolved: SessionModel =
      chosen.source === "pinned"
        ? resolvePinnedModel(chosen.ref, config, env, build)
        : { ...resolveModel(chosen.ref, config, env, build), source: chosen.source };
    cache.set(chosen.ref, resolved);
    return resolved;
  }
}
