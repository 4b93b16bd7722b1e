import type { JSONSchema7, LanguageModelV3FunctionTool } from "@ai-sdk/provider";
import { z } from "zod";
import { resolveAllowlist } from "../profiles/define.js";
import type { Profile } from "../profiles/types.js";
import type { ToolRegistry } from "../tools/registry.js";

/** The tools offered to the model, and their size (for context estimates). */
export interface OfferedTools {
  tools: LanguageModelV3FunctionTool[];
  chars: number;
}

/** JSON Schema of a terminal tool (report_result) for a profile: `data` typed by the profile's output schema. */
function terminalSchema(
  base: Record<string, unknown>,
  output: z.ZodType | undefined,
): Record<string, unknown> {
  if (!output) {
    const { data: _drop, ...props } = (base.properties ?? {}) as Record<string, unknown>;
    return { ...base, properties: props };
  }
  const { $schema: _s, ...data } = z.toJSONSchema(output, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return { ...base, properties: { ...(base.properties as object), data } };
}

// Registries only gain tools and profiles are immutable (a reload makes new objects), so the tools a
// profile offers are built once per registry and profile instead of on every run.
const built = new WeakMap<ToolRegistry, WeakMap<Profile, OfferedTools>>();

function build(registry: ToolRegistry, profile: Profile, output = profile.output): OfferedTools {
  const tools: LanguageModelV3FunctionTool[] = [];
  let chars = 0;
  for (const [key, binding] of resolveAllowlist(profile)) {
    const spec = registry.spec(key, binding);
    const schema = registry.get(key)?.terminal ? terminalSchema(spec.inputSchema, output) : spec.inputSchema;
    tools.push({
      type: "function",
      name: key,
      description: spec.description,
      inputSchema: schema as JSONSchema7,
    });
    chars += key.length + spec.description.length + JSON.stringify(schema).length;
  }
  return { tools, chars };
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
