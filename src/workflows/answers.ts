import { z } from "zod";
import { type FieldError, NbError } from "../core/errors.js";
import { toPointer } from "../core/json-pointer.js";
import { formatFieldErrors, zodFieldErrors } from "../core/validate.js";
import type { PendingAsk } from "./store/index.js";

/** The option ids of a select ask. */
function optionIds(spec: Record<string, unknown>): string[] {
  const options = Array.isArray(spec.options) ? spec.options : [];
  return options
    .map((o) => (o && typeof o === "object" ? (o as { id?: unknown }).id : o))
    .filter((id): id is string => typeof id === "string");
}

/** Why one answer does not fit its ask, or null when it does. */
function answerProblem(spec: Record<string, unknown>, value: unknown): string | null {
  switch (spec.kind) {
    case "approve":
      return typeof value === "boolean" ? null : "must be true or false";
    case "text":
      return typeof value === "string" && value.trim() !== "" ? null : "must be a non-empty text";
    case "select": {
      const ids = optionIds(spec);
      if (spec.multi === true) {
        if (!Array.isArray(value) || value.length === 0)
          return `must be a non-empty array of: ${ids.join(", ")}`;
        const bad = value.filter((v) => typeof v !== "string" || !ids.includes(v));
        if (bad.length) return `unknown option(s) ${JSON.stringify(bad)}; choose from: ${ids.join(", ")}`;
        if (new Set(value).size !== value.length) return "an option is chosen twice";
        return null;
      }
      return typeof value === "string" && ids.includes(value) ? null : `must be one of: ${ids.join(", ")}`;
    }
    default:
      return `the ask has an unknown kind ${JSON.stringify(spec.kind)}`;
  }
}

/**
 * Check answers for every pending ask of a run at once: an object whose keys are exactly the asks'
 * keys, each value of the type its kind takes (approve: boolean, text: non-empty string, select: a
 * declared option id, or with `multi` a non-empty array of them). Throws `invalid_input` with one
 * pointer per problem; the caller writes nothing then.
 */
export function checkAnswers(
  asks: readonly PendingAsk[],
  answers: unknown,
): Array<{ ask: PendingAsk; value: unknown }> {
  if (!asks.length) throw new NbError("conflict", "The run is not waiting on any question");
  if (!answers || typeof answers !== "object" || Array.isArray(answers))
    throw new NbError("invalid_input", 'Answers must be an object: {"<ask key>": <answer>, …}', {
      fields: [{ pointer: "", message: "must be an object" }],
    });
  const given = answers as Record<string, unknown>;
  const fields: FieldError[] = [];
  for (const ask of asks) {
    if (!(ask.key in given))
      fields.push({
        pointer: toPointer([ask.key]),
        message: "required (every pending question is answered at once)",
      });
    else {
      const problem = answerProblem(ask.spec, given[ask.key]);
      if (problem) fields.push({ pointer: toPointer([ask.key]), message: problem });
    }
  }
  const keys = new Set(asks.map((a) => a.key));
  for (const k of Object.keys(given))
    if (!keys.has(k)) fields.push({ pointer: toPointer([k]), message: "no pending question has this key" });
  if (fields.length)
    throw new NbError("invalid_input", `Invalid answers:\n${formatFieldErrors(fields)}`, { fields });
  return asks.map((ask) => ({ ask, value: given[ask.key] }));
}

/** What `wf.ask` takes. */
export const AskSpecSchema = z
  .object({
    kind: z.enum(["select", "text", "approve"]),
    title: z.string().min(1),
    description: z.string().optional(),
    key: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, "letters, digits, _ and - only")
      .optional(),
    options: z
      .array(z.object({ id: z.string().min(1), label: z.string().min(1) }).strict())
      .min(1)
      .optional(),
    multi: z.boolean().optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (s.kind === "select" && !s.options)
      ctx.addIssue({ code: "custom", path: ["options"], message: "required for select" });
    if (s.kind !== "select" && (s.options || s.multi !== undefined))
      ctx.addIssue({ code: "custom", path: ["options"], message: "only for select" });
    if (s.options && new Set(s.options.map((o) => o.id)).size !== s.options.length)
      ctx.addIssue({ code: "custom", path: ["options"], message: "option ids must be unique" });
  });

/** Why an ask's spec is invalid (an error thrown into the script), or null. */
export function askSpecError(spec: unknown): NbError | null {
  const r = AskSpecSchema.safeParse(spec);
  if (r.success) return null;
  const fields = zodFieldErrors(r.error);
  return new NbError("invalid_input", `Invalid wf.ask:\n${formatFieldErrors(fields)}`, { fields });
}
