import { readFileSync } from "node:fs";
import { NbError, toErrorInfo } from "../core/errors.js";
import { MODES, type Mode } from "../core/modes.js";

/** Parse `--mode`; an absent option stays absent. */
export function parseMode(raw: string): Mode;
export function parseMode(raw: string | undefined): Mode | undefined;
export function parseMode(raw: string | undefined): Mode | undefined {
  if (raw === undefined) return undefined;
  if (!MODES.includes(raw as Mode))
    throw new NbError("invalid_input", `--mode must be one of ${MODES.join(", ")}`);
  return raw as Mode;
}

/** The JSON value given to `option` (e.g. "--input"); `invalid_input` naming the option when it does not parse. */
export function parseJsonOption(option: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new NbError("invalid_input", `${option} is not valid JSON: ${(e as Error).message}`);
  }
}

/** An option holding inline JSON, or `@file` naming a JSON file (e.g. `--input`, `--initial`). */
export function readJsonArgument(option: string, raw: string): unknown {
  if (!raw.startsWith("@")) return parseJsonOption(option, raw);
  const file = raw.slice(1);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new NbError("invalid_input", `${option} ${raw}: cannot read ${file} (${toErrorInfo(e).message})`);
  }
  return parseJsonOption(`${option} ${raw}`, text);
}
