import { z } from "zod";
import { type FieldError, NbError } from "../core/errors.js";
import { formatFieldErrors, zodFieldErrors } from "../core/validate.js";

const compiled = new WeakMap<object, z.ZodType>();

/** Compile a workflow's args JSON Schema (cached per schema object); throws what the schema gets wrong. */
export function argsSchema(schema: Record<string, unknown>): z.ZodType {
  let s = compiled.get(schema);
  if (!s) {
    s = z.fromJSONSchema(schema as never);
    compiled.set(schema, s);
  }
  return s;
}

/**
 * Validate a run's args against the workflow's schema and fill in its defaults; `invalid_input` with
 * one JSON-Pointer field error per problem, each under `base` (e.g. `/args/topic: required`).
 */
export function validateArgs(schema: Record<string, unknown>, args: unknown, base = "/args"): unknown {
  const r = argsSchema(schema).safeParse(args ?? {});
  if (r.success) return r.data;
  const fields: FieldError[] = zodFieldErrors(r.error).map((f) => ({
    pointer: `${base}${f.pointer}`,
    message: f.message,
  }));
  throw new NbError("invalid_input", `Invalid workflow args:\n${formatFieldErrors(fields)}`, { fields });
}
