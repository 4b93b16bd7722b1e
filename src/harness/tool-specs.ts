import { jsonSchema, type ToolSet, tool } from "ai";
import { z } from "zod";
import type { Profile, ResolvedAllowlist } from "../profiles/types.js";
import type { ToolRegistry } from "../tools/registry.js";

/** The tools offered to the model, and their size (for context estimates). */
export interface OfferedTools {
  tools: ToolSet;
  chars: number;
}

/** JSON Schema of report_result for a profile: `data` typed by the profile's output schema. */
function reportResultSchema(
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

/**
 * Exactly the profile's allowlisted tools, as AI SDK tools without `execute`: the loop executes
 * every call itself through dispatch, so the mode gate and the allowlist always apply.
 */
export function offeredTools(
  registry: ToolRegistry,
  allow: ResolvedAllowlist,
  profile: Profile,
): OfferedTools {
  const tools: ToolSet = {};
  let chars = 0;
  for (const [key, binding] of allow) {
    const spec = registry.spec(key, binding);
    const schema =
      key === "report_result" ? reportResultSchema(spec.inputSchema, profile.output) : spec.inputSchema;
    tools[key] = tool({ description: spec.description, inputSchema: jsonSchema(schema) });
    chars += key.length + spec.description.length + JSON.stringify(schema).length;
  }
  return { tools, chars };
}
