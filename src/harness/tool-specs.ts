import type { JSONSchema7, LanguageModelV3FunctionTool } from "@ai-sdk/provider";
import { z } from "zod";
import { resolveAllowlist } from "../profiles/define.js";
import type { Profile, ResolvedAllowlist } from "../profiles/types.js";
import { modelSchema } from "../tools/model-schema.js";
import { LOAD_TOOLS, onDemandSets } from "../tools/on-demand.js";
import type { ToolRegistry } from "../tools/registry.js";

/** Some tools offered to the model, and their size (for context estimates). */
export interface ToolBatch {
  tools: LanguageModelV3FunctionTool[];
  chars: number;
}

/** The tools offered to the model: those sent on every step, and the sets sent once loaded (on-demand.ts). */
export interface OfferedTools extends ToolBatch {
  sets: ReadonlyMap<string, ToolBatch>;
}

function isEmptyObject(schema: Record<string, unknown>): boolean {
  return schema.type === "object" && Object.keys((schema.properties ?? {}) as object).length === 0;
}

/** JSON Schema of a terminal tool (report_result) for a profile: `data` typed by the profile's output schema. */
function terminalSchema(
  base: Record<string, unknown>,
  output: z.ZodType | undefined,
): Record<string, unknown> {
  const { $schema: _s, ...data } = output
    ? (z.toJSONSchema(output, { io: "input", unrepresentable: "any" }) as Record<string, unknown>)
    : {};
  // An output with no fields (the inline editor's) asks for nothing beyond `result`.
  if (!output || isEmptyObject(data)) {
    const { data: _drop, ...props } = (base.properties ?? {}) as Record<string, unknown>;
    return { ...base, properties: props };
  }
  return { ...base, properties: { ...(base.properties as object), data: modelSchema(data) } };
}

// Registries only gain tools and profiles are immutable (a reload makes new objects), so the tools a
// profile offers are built once per registry and profile instead of on every run.
const built = new WeakMap<ToolRegistry, WeakMap<Profile, OfferedTools>>();

function build(registry: ToolRegistry, profile: Profile, output = profile.output): OfferedTools {
  const allow = resolveAllowlist(profile);
  const setOf = new Map<string, string>();
  for (const [name, keys] of Object.entries(onDemandSets(allow.get(LOAD_TOOLS)))) {
    for (const key of keys) if (allow.has(key) && !setOf.has(key)) setOf.set(key, name);
  }
  const always: ToolBatch = { tools: [], chars: 0 };
  const sets = new Map<string, ToolBatch>();
  for (const [key, binding] of allow) {
    const spec = registry.spec(key, binding);
    const schema = registry.get(key)?.terminal ? terminalSchema(spec.inputSchema, output) : spec.inputSchema;
    const set = setOf.get(key);
    let batch = always;
    if (set) {
      batch = sets.get(set) ?? { tools: [], chars: 0 };
      sets.set(set, batch);
    }
    batch.tools.push({
      type: "function",
      name: key,
      description: spec.description,
      inputSchema: schema as JSONSchema7,
    });
    batch.chars += key.length + spec.description.length + JSON.stringify(schema).length;
  }
  return { ...always, sets };
}

/**
 * Exactly the profile's allowlisted tools, as provider function tools without an executor: the loop
 * executes every call itself through dispatch, so the mode gate and the allowlist always apply.
 */
export function offeredTools(
  registry: ToolRegistry,
  profile: Profile,
  output: z.ZodType | undefined = profile.output,
): OfferedTools {
  // A session-specific output type (adhoc's outputSchema) changes the terminal tool's schema: not cached.
  if (output !== profile.output) return build(registry, profile, output);
  let byProfile = built.get(registry);
  if (!byProfile) {
    byProfile = new WeakMap();
    built.set(registry, byProfile);
  }
  let offered = byProfile.get(profile);
  if (!offered) {
    offered = build(registry, profile);
    byProfile.set(profile, offered);
  }
  return offered;
}

/**
 * True when the session mode can stop a call of this allowlist (a write-effect tool not bound
 * read-only, or switch_mode to change it): a profile that only reads is not told the mode.
 */
export function modeGates(registry: ToolRegistry, allow: ResolvedAllowlist): boolean {
  for (const [key, binding] of allow) {
    if (key === "switch_mode") return true;
    const effect = registry.get(key)?.effect;
    if (effect && effect !== "read" && binding.access !== "readonly") return true;
  }
  return false;
}

/**
 * The tools one step sends: the always-sent ones, then each loaded set in the profile's order, so the
 * definitions stay a stable prefix that providers caching prompt prefixes can reuse.
 */
export function stepTools(offered: OfferedTools, loaded: ReadonlySet<string>): ToolBatch {
  if (loaded.size === 0 || offered.sets.size === 0) return offered;
  const out: ToolBatch = { tools: [...offered.tools], chars: offered.chars };
  for (const [name, batch] of offered.sets) {
    if (!loaded.has(name)) continue;
    out.tools.push(...batch.tools);
    out.chars += batch.chars;
  }
  return out;
}
