import type { z } from "zod";
import type { ToolDef } from "./types.js";

const KEY = /^[a-z][a-z0-9_]*$/;

/** Define a tool; checks the key and that an effect is declared. */
export function defineTool<S extends z.ZodType>(def: ToolDef<S>): ToolDef<S> {
  if (!KEY.test(def.key)) throw new Error(`tool key must be snake_case: ${def.key}`);
  if (def.effect === undefined) throw new Error(`tool ${def.key} must declare its effect`);
  return Object.freeze({ ...def });
}
