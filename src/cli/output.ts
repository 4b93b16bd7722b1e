import { isNbError, toErrorInfo } from "../core/errors.js";
import { visibleControls } from "../core/text.js";

/** Exit statuses shared by every command. */
export const EXIT = { ok: 0, toolError: 1, usage: 2 } as const;

/**
 * Print on stdout. Every command prints through here (or printJson): what it prints may quote a
 * model, a tool, a page or a workflow, so control characters are shown, never sent to the
 * terminal (see visibleControls).
 */
export function writeOut(text: string): void {
  process.stdout.write(visibleControls(text));
}

/** Print on stderr, control characters shown as for writeOut. */
export function writeErr(text: string): void {
  process.stderr.write(visibleControls(text));
}

/** DEL and C1 controls, which JSON.stringify leaves raw (it escapes C0 itself). */
const RAW_IN_JSON = /[\u007f-\u009f]/g;

/** Print a JSON value as one line on stdout, with no raw control character (the value parses back unchanged). */
export function printJson(value: unknown): void {
  const json = `${JSON.stringify(value)}`.replace(RAW_IN_JSON, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
  process.stdout.write(`${json}\n`);
}

/** Report an error from a command on stderr and set the exit status (2 for usage errors, else 1). */
export function reportCliError(e: unknown, json = false): void {
  const info = toErrorInfo(e);
  if (json) printJson({ ok: false, error: info });
  else writeErr(`error [${info.code}]: ${info.message}\n`);
  const usage =
    isNbError(e) && (e.code === "invalid_input" || e.code === "not_found" || e.code === "config_error");
  process.exitCode = usage ? EXIT.usage : EXIT.toolError;
}
