import { toErrorInfo } from "../core/errors.js";

/** JSON-RPC codes for failed resource reads (MCP uses -32002 for "resource not found"). */
const RESOURCE_NOT_FOUND = -32002;
/** JSON-RPC "invalid params": MCP's answer to a call of a tool the server does not offer. */
export const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

/**
 * An error the MCP SDK sends as a JSON-RPC error as it is: the numeric `code`, the message, and
 * `data.code` with NeuroBook's stable error code.
 */
export class ProtocolError extends Error {
  readonly code: number;
  readonly data: { code: string };

  constructor(code: number, message: string, data: { code: string }) {
    super(message);
    this.name = "ProtocolError";
    this.code = code;
    this.data = data;
  }
}

/** Turn anything a resource handler throws into a ProtocolError without host paths or stack traces. */
export function toProtocolError(e: unknown, hidePaths: string[]): ProtocolError {
  const info = toErrorInfo(e, hidePaths);
  const code =
    info.code === "not_found"
      ? RESOURCE_NOT_FOUND
      : info.code === "invalid_input" || info.code === "path_escape"
        ? INVALID_PARAMS
        : INTERNAL_ERROR;
  return new ProtocolError(code, info.message, { code: info.code });
}
