// Kept free of zod at run time (the CLI's start-up loads this module): the schemas of these shapes
// are in error-schema.ts, and the types here are inferred from them.
import type { z } from "zod";
import type { ErrorCodeSchema, ErrorInfoSchema, FieldErrorSchema } from "./error-schema.js";

/** Stable error codes shared by every door (CLI, agent loop, MCP, HTTP). */
export const ERROR_CODES = [
  "invalid_input",
  "not_found",
  "path_escape",
  "not_allowed",
  "approval_required",
  "conflict",
  "timeout",
  "limit_exceeded",
  "unsupported",
  "config_error",
  "io_error",
  "aborted",
  "internal",
] as const;

export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

/** One field-level problem, located by a JSON Pointer into the input. */
export type FieldError = z.infer<typeof FieldErrorSchema>;

/** The serialisable shape of an error as it reaches a model or a client (and as it is stored). */
export type ErrorInfo = z.infer<typeof ErrorInfoSchema>;

/** A typed error with a stable code; thrown inside domain code, turned into a value at the doors. */
export class NbError extends Error {
  readonly code: ErrorCode;
  readonly fields?: FieldError[];
  readonly details?: unknown;

  constructor(code: ErrorCode, message: string, opts: { fields?: FieldError[]; details?: unknown } = {}) {
    super(message);
    this.name = "NbError";
    this.code = code;
    if (opts.fields?.length) this.fields = opts.fields;
    if (opts.details !== undefined) this.details = opts.details;
  }

  toInfo(): ErrorInfo {
    const info: ErrorInfo = { code: this.code, message: this.message };
    if (this.fields) info.fields = this.fields;
    if (this.details !== undefined) info.details = this.details;
    return info;
  }
}

/** True when a value is an NbError. */
export function isNbError(e: unknown): e is NbError {
  return e instanceof NbError;
}

/**
 * Turn anything thrown into an ErrorInfo that is safe to show a model: Node system errors become
 * `io_error`/`not_found` with a short message and no host paths; unknown errors become `internal`
 * without a stack trace.
 */
export function toErrorInfo(e: unknown, hidePaths: string[] = []): ErrorInfo {
  if (isNbError(e)) return scrubInfo(e.toInfo(), hidePaths);
  const err = e as NodeJS.ErrnoException | undefined;
  if (err && typeof err === "object" && typeof err.code === "string" && typeof err.syscall === "string") {
    const code: ErrorCode = err.code === "ENOENT" ? "not_found" : "io_error";
    const what: Record<string, string> = {
      ENOENT: "no such file or directory",
      EISDIR: "is a directory",
      ENOTDIR: "not a directory",
      EACCES: "permission denied",
      EEXIST: "already exists",
      ENOTEMPTY: "directory not empty",
    };
    return { code, message: `${err.syscall} failed: ${what[err.code] ?? err.code}` };
  }
  const message = err instanceof Error ? err.message : String(e);
  return scrubInfo({ code: "internal", message }, hidePaths);
}

/** Replace each host path prefix in messages by a neutral placeholder. */
export function scrubPaths(text: string, hidePaths: string[]): string {
  let out = text;
  for (const p of [...hidePaths].sort((a, b) => b.length - a.length)) {
    if (p.length > 1) out = out.split(p).join("<root>");
  }
  return out;
}

function scrubInfo(info: ErrorInfo, hidePaths: string[]): ErrorInfo {
  if (!hidePaths.length) return info;
  return { ...info, message: scrubPaths(info.message, hidePaths) };
}
