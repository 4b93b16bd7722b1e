import { z } from "zod";
import type { Effect, Prepared, ToolContext, ToolDef, ToolResult } from "./types.js";

const KEY = /^[a-z][a-z0-9_]*$/;

type MaybePromise<T> = T | Promise<T>;

/** True for a `z.object({...}).strict()`: unknown fields are refused, not silently dropped. */
function isStrictObject(schema: z.ZodType): boolean {
  return schema instanceof z.ZodObject && schema.def.catchall?._zod.def.type === "never";
}

/** What a tool definition spells out; scope and ordering default to `any` and `parallel`. */
type ToolSpecOf<S extends z.ZodType, B> = Omit<ToolDef<S, B>, "scope" | "ordering" | "prepare"> &
  Partial<Pick<ToolDef<S, B>, "scope" | "ordering">>;

/** A tool whose calls are prepared: the shape of every write. */
type PreparedToolSpec<S extends z.ZodType, B> = ToolSpecOf<S, B> & {
  prepare: ToolDef<S, B>["prepare"];
};

/**
 * Sugar for a tool with nothing to prepare, preview or pin (every read tool): it only executes,
 * with the effect it declares and no known write targets.
 */
type ExecuteToolSpec<S extends z.ZodType> = Omit<ToolSpecOf<S, never>, "effect" | "basis"> & {
  effect: Effect;
  execute: (input: z.infer<S>, ctx: ToolContext) => MaybePromise<ToolResult>;
};

/** Define a tool; checks the key, that the input is a strict object and that an effect is declared. */
export function defineTool<S extends z.ZodType, B = unknown>(def: PreparedToolSpec<S, B>): ToolDef<S, B>;
export function defineTool<S extends z.ZodType>(def: ExecuteToolSpec<S>): ToolDef<S, never>;
export function defineTool<S extends z.ZodType, B>(
  def: PreparedToolSpec<S, B> | ExecuteToolSpec<S>,
): ToolDef<S, B> | ToolDef<S, never> {
  const key = def.key;
  if (!KEY.test(key)) throw new Error(`tool key must be snake_case: ${key}`);
  if (!isStrictObject(def.input)) throw new Error(`tool ${key}: input must be a strict zod object`);
  if (def.effect === undefined) throw new Error(`tool ${key} must declare its effect`);
  const base = { scope: "any", ordering: "parallel" } as const;
  if ("prepare" in def) return Object.freeze({ ...base, ...def });
  const { execute, effect, ...rest } = def;
  const prepare = (input: z.infer<S>, ctx: ToolContext): Prepared<never> => ({
    effect,
    targets: effect === "read" ? [] : null,
    run: async () => execute(input, ctx),
  });
  return Object.freeze({ ...base, ...rest, effect, prepare });
}
