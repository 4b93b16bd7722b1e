import { existsSync, readFileSync } from "node:fs";
import { NbError } from "./errors.js";

/**
 * A `.nbook/config.json` as an object, `{}` when the file does not exist. Each module (models,
 * web, research) reads its own section of it; a file that is not a JSON object is a `config_error`.
 */
export function readConfigFile(file: string, label: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new NbError("config_error", `${label} is not valid JSON: ${(e as Error).message}`);
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    throw new NbError("config_error", `${label} must hold an object`);
  }
  return value as Record<string, unknown>;
}
