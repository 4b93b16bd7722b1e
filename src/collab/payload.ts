import type { z } from "zod";
import { NbError } from "../core/errors.js";
import { formatFieldErrors, zodFieldErrors } from "../core/validate.js";
import type { Profile } from "../profiles/types.js";

/**
 * An invocation's payload (`invoke_agent`'s `input`) travels in the user message it writes, as a
 * JSON block at its end: the one record every way into a session keeps (a run now, a queued
 * prompt, a continuation after an approval, another process). The harness reads it back from
 * there for the tools that are bound to it (the writer's target file).
 */
const HEADER = "Input (this invocation's payload):\n```json\n";
/** The header's first line, which a message carrying a payload holds as it is stored (JSON-escaped). */
export const PAYLOAD_MARK = HEADER.slice(0, HEADER.indexOf("\n"));
const FOOTER = "\n```";

/** Validate a value strictly against a profile schema; field pointers are relative to the value. */
export function parseStrict(schema: z.ZodType, value: unknown, what: string): Record<string, unknown> {
  const r = schema.safeParse(value);
  if (r.success) return r.data as Record<string, unknown>;
  const fields = zodFieldErrors(r.error);
  throw new NbError(
    "invalid_input",
    `Invalid ${what} (fix the object at each JSON Pointer; never send it as a string):\n${formatFieldErrors(fields)}`,
    { fields },
  );
}

/** An invocation's `input`, validated by the target profile's payload schema (none given: undefined). */
export function invocationPayload(profile: Profile, input: unknown): Record<string, unknown> | undefined {
  if (input === undefined) return undefined;
  if (!profile.payload) {
    throw new NbError("invalid_input", `Profile ${profile.key} takes no input; send a message instead`, {
      fields: [{ pointer: "/input", message: "not accepted by this profile" }],
    });
  }
  return parseStrict(profile.payload, input, `input for profile ${profile.key}`);
}

/** The user message an invocation writes: the message, then the payload as JSON. */
export function invocationText(
  message: string | undefined,
  payload: Record<string, unknown> | undefined,
): string | undefined {
  if (payload === undefined) return message;
  const block = `${HEADER}${JSON.stringify(payload, null, 2)}${FOOTER}`;
  return message === undefined ? block : `${message}\n\n${block}`;
}

/**
 * The payload a user message carries at its end (as `invocationText` wrote it), or null. The block
 * is the message's last one: JSON escapes newlines, so no header can hide inside the payload itself.
 */
export function payloadOf(text: string): Readonly<Record<string, unknown>> | null {
  const at = text.lastIndexOf(HEADER);
  if (at < 0 || !text.endsWith(FOOTER) || (at > 0 && !text.startsWith("\n\n", at - 2))) return null;
  try {
    const v: unknown = JSON.parse(text.slice(at + HEADER.length, text.length - FOOTER.length));
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
