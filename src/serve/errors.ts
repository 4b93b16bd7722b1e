import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { type ErrorCode, type ErrorInfo, NbError, toErrorInfo } from "../core/errors.js";

/** The HTTP status each tool error code is answered with. */
const STATUS: Record<ErrorCode, ContentfulStatusCode> = {
  invalid_input: 400,
  not_found: 404,
  path_escape: 403,
  not_allowed: 403,
  approval_required: 409,
  conflict: 409,
  timeout: 504,
  limit_exceeded: 400,
  unsupported: 415,
  config_error: 500,
  io_error: 500,
  aborted: 409,
  internal: 500,
};

/** An NbError answered with a status other than its code's usual one (401 login, 413 body cap). */
export class HttpError extends NbError {
  constructor(
    readonly status: ContentfulStatusCode,
    code: ErrorCode,
    message: string,
    opts: { details?: unknown } = {},
  ) {
    super(code, message, opts);
  }
}

/** The JSON envelope every API error has: `{error:{code,message,fields[,details]}}`. */
export function errorBody(info: ErrorInfo): {
  error: ErrorInfo & { fields: NonNullable<ErrorInfo["fields"]> };
} {
  const error: ErrorInfo & { fields: NonNullable<ErrorInfo["fields"]> } = {
    code: info.code,
    message: info.message,
    fields: info.fields ?? [],
  };
  if (info.details !== undefined) error.details = info.details;
  return { error };
}

/** Answer anything thrown as a JSON error, host paths hidden; `hidePaths` are the workspace's roots. */
export function errorResponse(c: Context, e: unknown, hidePaths: string[]): Response {
  const info = toErrorInfo(e, hidePaths);
  const status = e instanceof HttpError ? e.status : STATUS[info.code];
  return c.json(errorBody(info), status);
}
