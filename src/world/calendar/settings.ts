import type { z } from "zod";
import { NbError } from "../../core/errors.js";
import { formatFieldErrors, zodFieldErrors } from "../../core/validate.js";

/** Validate calendar settings or throw `config_error` with one JSON-Pointer field error per problem. */
export function parseSettings<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const fields = zodFieldErrors(r.error);
  throw new NbError("config_error", `invalid calendar settings:\n${formatFieldErrors(fields)}`, { fields });
}

/** The first value that occurs twice in `values`, if any. */
export function firstDuplicate(values: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (const v of values) {
    if (seen.has(v)) return v;
    seen.add(v);
  }
  return undefined;
}

/** Attach `pointer` to a settings error that has no field yet, so the loader can name its line. */
export function atPointer(e: unknown, pointer: string): unknown {
  if (!(e instanceof NbError) || e.fields) return e;
  return new NbError(e.code, e.message, { fields: [{ pointer, message: e.message }], details: e.details });
}

/** A `config_error` located at `pointer`. */
export function settingsError(pointer: string, message: string): NbError {
  return new NbError("config_error", message, { fields: [{ pointer, message }] });
}
