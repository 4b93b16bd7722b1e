import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { GREGORIAN_DEFAULTS } from "../world/calendar/gregorian.js";
import { defaultCalendarYaml } from "./calendar-seed.js";

describe("the calendar a new project starts with", () => {
  it("states the Gregorian calendar's own era words and format for each project language", () => {
    for (const language of ["en", "zh"] as const) {
      const seeded = parseYaml(defaultCalendarYaml({ language }));
      const d = GREGORIAN_DEFAULTS[language];
      expect(seeded, language).toEqual({ type: "gregorian", language, eras: d.eras, format: d.format });
    }
  });
});
