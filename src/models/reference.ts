import { NbError } from "../core/errors.js";
import type { ModelsConfig } from "./config.js";

/** A provider id: a slug (it is the part of a model reference before the first `/`). */
export const PROVIDER_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A model reference `<providerId>/<modelId>`; the model id may itself contain `/`. */
export const MODEL_REF = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\/\S+$/;

/** A parsed model reference. */
export interface ModelRef {
  providerId: string;
  modelId: string;
}

/** Split `<providerId>/<modelId>` at the first `/`; `invalid_input` when malformed. */
export function parseModelRef(ref: string): ModelRef {
  if (!MODEL_REF.test(ref)) {
    throw new NbError(
      "invalid_input",
      `Invalid model reference "${ref}": expected <providerId>/<modelId>, e.g. "openai/gpt-4o-mini"`,
    );
  }
  const slash = ref.indexOf("/");
  return { providerId: ref.slice(0, slash), modelId: ref.slice(slash + 1) };
}

/** Where a selected model reference came from, in priority order. */
export type ModelRefSource = "override" | "config_profile" | "profile" | "config_default";

/** The inputs of model selection for one session or invocation. */
export interface ModelSelection {
  /** `--model` (one invocation). */
  override?: string | null;
  profileKey: string;
  /** The profile definition's own `defaultModel`. */
  profileDefault?: string | null;
  config: Pick<ModelsConfig, "profiles" | "defaultModel">;
}

/**
 * Pick the model reference: `--model` > `profiles.<key>.model` in config > the profile's own
 * `defaultModel` > `defaultModel` in config. `config_error` naming the settings when none is set.
 */
export function selectModelRef(sel: ModelSelection): { ref: string; source: ModelRefSource } {
  const candidates: [string | null | undefined, ModelRefSource][] = [
    [sel.override, "override"],
    [sel.config.profiles[sel.profileKey]?.model, "config_profile"],
    [sel.profileDefault, "profile"],
    [sel.config.defaultModel, "config_default"],
  ];
  for (const [ref, source] of candidates) {
    if (ref) {
      parseModelRef(ref);
      return { ref, source };
    }
  }
  throw new NbError(
    "config_error",
    `No model configured for profile "${sel.profileKey}": set "defaultModel" (or "profiles.${sel.profileKey}.model") ` +
      `in .nbook/config.json to "<providerId>/<modelId>", pass --model <providerId>/<modelId>, ` +
      "or use --script <file> to run a scripted model offline",
    { details: { missing: ["defaultModel", `profiles.${sel.profileKey}.model`] } },
  );
}
