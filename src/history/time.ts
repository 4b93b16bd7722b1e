import { NbError } from "../core/errors.js";

/**
 * A time a user gives (`2026-12-01`, `2026-12-01T09:30`, full ISO 8601), as the index stores
 * times (ISO, UTC); `invalid_input` naming the option for anything else.
 */
export function parseTime(text: string, option: string): string {
  const t = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(text.trim())
    ? Date.parse(text.trim().replace(" ", "T"))
    : Number.NaN;
  if (Number.isNaN(t))
    throw new NbError(
      "invalid_input",
      `${option} must be a date or time such as 2026-12-01 or 2026-12-01T09:30Z`,
      {
        fields: [{ pointer: `/${option.replace(/^-+/, "")}`, message: "not a date or time" }],
      },
    );
  return new Date(t).toISOString();
}
