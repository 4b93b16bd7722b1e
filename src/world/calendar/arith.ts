import { NbError } from "../../core/errors.js";

/** Integer division rounding toward negative infinity (so times before zero land in the right unit). */
export function floorDiv(a: number, b: number): number {
  return Math.floor(a / b);
}

/** Remainder with the sign of the divisor: always in 0..b-1 for positive b. */
export function mod(a: number, b: number): number {
  const r = a % b;
  return r < 0 ? r + b : r === 0 ? 0 : r;
}

/** Throw `invalid_input` unless `seconds` is a safe integer count of seconds. */
export function assertInstant(seconds: number): void {
  if (!Number.isSafeInteger(seconds)) {
    throw new NbError(
      "invalid_input",
      `time must be a safe integer count of seconds, got ${String(seconds)}`,
    );
  }
}

/** The `invalid_input` error for a parsed value outside its allowed range. */
export function rangeError(what: string, value: number, min: number, max: number, context = ""): NbError {
  const suffix = context ? ` ${context}` : "";
  const upper = Number.isFinite(max) ? String(max) : "";
  return new NbError("invalid_input", `${what} ${value} out of range ${min}..${upper}${suffix}`);
}

/** Throw the error for a calendar string whose time falls outside the safe-integer range. */
export function assertSafeResult(seconds: number, text: string): number {
  if (!Number.isSafeInteger(seconds)) {
    throw new NbError(
      "invalid_input",
      `"${text}" is outside the representable range (times must lie within ±${Number.MAX_SAFE_INTEGER} seconds of the zero point)`,
    );
  }
  return seconds === 0 ? 0 : seconds;
}
