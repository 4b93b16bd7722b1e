import { z } from "zod";
import type { ToolDef } from "./types.js";

const KEY = /^[a-z][a-z0-9_]*$/;

/** True for a `z.object({...}).strict()`: unknown fields are refused, not silently dropped. */
function isStrictObject(schema: z.ZodType): boolean {
  return schema instanceof z.ZodObject && schema.def.catchall?._zod.def.type === "never";
}

/** Define a tool; checks the key, that the input is a strict object and that an effect is declared. */
export function defineTool<S extends z.ZodType>(def: ToolDef<S>): ToolDef<S> {
  if (!KEY.test(def.key)) throw new Error(`tool key must be snake_case: ${def.key}`);
  if (!isStrictObject(def.input)) throw new Error(`tool ${def.key}: input must be a strict zod object`);
  if (def.effect === undefined) throw new Error(`tool ${def.key} must declare its effect`);
  return Object.freeze({ ...def });
}
