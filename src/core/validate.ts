import type { z } from "zod";
import { type FieldError, NbError } from "./errors.js";
import { toPointer } from "./json-pointer.js";

/** Convert zod issues into JSON-Pointer field errors. */
export function zodFieldErrors(error: z.ZodError, basePath: ReadonlyArray<PropertyKey> = []): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of error.issues) {
    const path = [...basePath, ...issue.path];
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys)
        out.push({ pointer: toPointer([...path, key]), message: "unknown field" });
      continue;
    }
    const message = issue.code === "invalid_type" && isMissing(issue) ? "required" : issue.message;
    out.push({ pointer: toPointer(path), message });
  }
  return out;
}

/**
 * Whether a type error is about a value that is not there. zod keeps the received value on the
 * issue only when asked (`reportInput`); otherwise its message names what it received.
 */
function isMissing(issue: z.core.$ZodIssue): boolean {
  if ("input" in issue) return issue.input === undefined;
  return /received undefined$/.test(issue.message);
}

/** Format field errors as `/a/0: message` lines. */
export function formatFieldErrors(fields: FieldError[]): string {
  return fields.map((f) => `${f.pointer || "/"}: ${f.message}`).join("\n");
}

/** Parse `value` with `schema` or throw `invalid_input` with pointer-level field errors. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what = "input"): z.infer<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const fields = zodFieldErrors(r.error);
  throw new NbError("invalid_input", `Invalid ${what}:\n${formatFieldErrors(fields)}`, { fields });
}
