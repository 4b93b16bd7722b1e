import { z } from "zod";
import { defineProfile } from "../define.js";
import { basePrompt } from "./prompt.js";

// Compiled output schemas by their JSON text: sessions re-read `initial` from the store on every run.
const compiled = new Map<string, z.ZodType>();
const COMPILED_MAX = 64;

/** A JSON Schema as a zod type (cached); throws when it is not a usable schema. */
function fromJsonSchema(schema: Record<string, unknown>): z.ZodType {
  const text = JSON.stringify(schema);
  let s = compiled.get(text);
  if (!s) {
    s = z.fromJSONSchema(schema as never);
    if (compiled.size >= COMPILED_MAX) compiled.delete(compiled.keys().next().value as string);
    compiled.set(text, s);
  }
  return s;
}

export const adhoc = defineProfile({
  key: "adhoc",
  name: "Ad-hoc agent",
  description: "A throwaway agent defined by a prompt, mainly for workflows.",
  initial: z
    .object({
      name: z.string().optional(),
      systemPrompt: z.string().min(1),
      outputSchema: z
        .record(z.string(), z.unknown())
        .optional()
        .describe("JSON Schema of the structured result (report_result.data)")
        .superRefine((schema, ctx) => {
          if (schema === undefined) return;
          try {
            fromJsonSchema(schema);
          } catch (e) {
            ctx.addIssue({ code: "custom", message: `not a usable JSON Schema: ${(e as Error).message}` });
          }
        }),
    })
    .strict(),
  tools: ["read", "search", "report_result"],
  skills: "named",
  outputFor: (initial) =>
    initial.outputSchema ? fromJsonSchema(initial.outputSchema as Record<string, unknown>) : undefined,
  systemPrompt: (ctx) => `${basePrompt(String(ctx.initial.systemPrompt ?? "You are a helpful agent."), ctx)}`,
});
