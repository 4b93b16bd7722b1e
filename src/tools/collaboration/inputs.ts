import { z } from "zod";

/** A session id as a model writes it: a positive integer, or its decimal string. Always a string after parsing. */
export const SessionIdInput = z
  .union([z.number().int().positive(), z.string().regex(/^[1-9]\d{0,15}$/, "a session id like 12")])
  .transform((v) => String(v));

/**
 * A JSON object (never a string holding JSON, an array or null): what `initial` and an invocation's
 * `input` must be before the profile's own schema checks them.
 */
export const JsonObjectInput = z.record(z.string(), z.unknown());
