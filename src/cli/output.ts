import { isNbError, toErrorInfo } from "../core/errors.js";

/** Exit statuses shared by every command. */
export const EXIT = { ok: 0, toolError: 1, usage: 2 } as const;

/** Print a JSON value as one line on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** Report an error from a command on stderr and set the exit status (2 for usage errors, else 1). */
export function reportCliError(e: unknown, json = false): void {
  const info = toErrorInfo(e);
  if (json) printJson({ ok: false, error: info });
  else process.stderr.write(`error [${info.code}]: ${info.message}\n`);
  const usage =
    isNbError(e) && (e.code === "invalid_input" || e.code === "not_found" || e.code === "config_error");
  process.exitCode = usage ? EXIT.usage : EXIT.toolError;
}
