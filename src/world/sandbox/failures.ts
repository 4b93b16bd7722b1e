import { ERROR_CODES, type ErrorCode, NbError } from "../../core/errors.js";

/** What the prelude's `describe` reports about a thrown value. */
export interface ThrownInfo {
  name: string;
  message: string;
  stack?: string;
  lineNumber?: number;
  code?: string;
  details?: unknown;
  fields?: unknown;
}

/** Why a run stopped abnormally, as seen from the host. */
export interface StopState {
  timedOut: boolean;
  aborted: boolean;
  /** The WASM heap grew by more than the memory limit during the run. */
  outOfMemory: boolean;
  timeoutMs: number;
  memoryBytes: number;
}

const SCRIPT_CODES = new Set<string>(ERROR_CODES);

/** The script line (1-based, in the user's code) a thrown value points at, if any. */
export function scriptLine(info: ThrownInfo, filename: string, userLines: number): number | undefined {
  const escaped = filename.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const m = info.stack ? new RegExp(`${escaped}:(\\d+)`).exec(info.stack) : null;
  const raw = m ? Number(m[1]) : info.lineNumber;
  if (raw === undefined || !Number.isFinite(raw)) return undefined;
  // The user's code starts on line 2 of the wrapper function.
  return Math.min(Math.max(raw - 1, 1), Math.max(userLines, 1));
}

const at = (line: number | undefined) => (line === undefined ? "" : ` at line ${line}`);

/** Turn what the script threw into an NbError with a stable code, the message and the line. */
export function scriptFailure(info: ThrownInfo, line: number | undefined, stop: StopState): NbError {
  const details: Record<string, unknown> = { name: info.name };
  if (line !== undefined) details.line = line;
  const interrupted = info.name === "InternalError" && info.message === "interrupted";
  const outOfMemory = interrupted && stop.outOfMemory;
  if (interrupted && (stop.timedOut || stop.aborted)) {
    return stop.aborted
      ? new NbError("aborted", `Script aborted${at(line)}`, { details })
      : new NbError("timeout", `Script timed out after ${stop.timeoutMs / 1000} s${at(line)}`, { details });
  }
  if (outOfMemory || (info.name === "InternalError" && info.message === "out of memory")) {
    const mib = Math.round(stop.memoryBytes / (1024 * 1024));
    return new NbError("limit_exceeded", `Script exceeded the sandbox memory limit (${mib} MiB)${at(line)}`, {
      details,
    });
  }
  if (info.name === "InternalError" && info.message === "string too long") {
    return new NbError("limit_exceeded", `Script built a string longer than the sandbox allows${at(line)}`, {
      details,
    });
  }
  if (info.name === "InternalError" && info.message === "stack overflow") {
    return new NbError(
      "limit_exceeded",
      `Script exceeded the sandbox stack (recursion too deep)${at(line)}`,
      {
        details,
      },
    );
  }
  const code: ErrorCode =
    info.code !== undefined && SCRIPT_CODES.has(info.code) ? (info.code as ErrorCode) : "invalid_input";
  if (info.code !== undefined) details.code = info.code;
  if (info.details !== undefined) details.cause = info.details;
  if (info.fields !== undefined) details.fields = info.fields;
  return new NbError(code, `Script failed${at(line)}: ${info.name}: ${info.message}`, { details });
}

/** A failure of the WASM machinery itself (the host stack overflowed inside QuickJS, …). */
export function hostFailure(e: unknown): NbError {
  if (e instanceof RangeError) {
    return new NbError("limit_exceeded", "Script nesting is too deep for the sandbox (host stack exhausted)");
  }
  return new NbError("internal", `The sandbox failed: ${e instanceof Error ? e.message : String(e)}`);
}
