import { z } from "zod";
import { ERROR_CODES } from "./errors.js";

/** The schemas of errors.ts's shapes (ErrorInfo and its parts), for what stores or publishes them. */
export const ErrorCodeSchema = z.enum(ERROR_CODES);

/** One field-level problem, located by a JSON Pointer into the input. */
export const FieldErrorSchema = z.object({ pointer: z.string(), message: z.string() }).strict();

/** The serialisable shape of an error as it reaches a model or a client (and as it is stored). */
export const ErrorInfoSchema = z
  .object({
    code: ErrorCodeSchema,
    message: z.string(),
    fields: z.array(FieldErrorSchema).optional(),
    details: z.unknown().optional(),
  })
  .strict();
