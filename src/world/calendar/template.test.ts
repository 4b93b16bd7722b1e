import { describe, expect, it } from "vitest";
import { errorOf } from "../../../test/errors.js";
import { Template } from "./template.js";

const specs = {
  year: { numeric: true },
  month: { numeric: true, names: ["Jan.", "Feb.(short)"], nameBase: 1 },
  era: { numeric: false, names: ["B", "A"], nameBase: -1 },
};

describe("Template", () => {
  it("renders and matches literal braces, padding, signs and names with regex characters", () => {
    const t = new Template("{{{year:04}}} {month:name} {era}", specs);
    expect(t.render({ year: -7, month: 2, era: 0 })).toBe("{-0007} Feb.(short) A");
    expect(Object.fromEntries(t.match("{-0007} Feb.(short) A")!)).toEqual({ year: -7, month: 2, era: 0 });
    expect(t.match("{0007} Feb.short A")).toBeNull();
    expect(t.match("{07} Jan. A")).toBeNull();
  });

  it("requires a repeated field to agree with itself", () => {
    const t = new Template("{year}/{year}", specs);
    expect(t.match("5/5")?.get("year")).toBe(5);
    expect(errorOf(() => t.match("5/6")).message).toContain("year is given twice");
  });

  it("rejects malformed formats with config_error", () => {
    for (const [fmt, text] of [
      ["{year", 'unmatched "{"'],
      ["{year:x}", "not a known style"],
      ["{era:02}", "can only be shown by name"],
      ["{year:name}", "has no names"],
      ["plain text", "shows no calendar field"],
      ["{decade}", "unknown field {decade}"],
    ]) {
      const e = errorOf(() => new Template(fmt, specs));
      expect(e.code).toBe("config_error");
      expect(e.message).toContain(text);
    }
  });
});
