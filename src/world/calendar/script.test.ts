import { beforeAll, describe, expect, it } from "vitest";
import { errorOf } from "../../../test/errors.js";
import { loadSandbox, prepareContained, runScriptSync } from "../sandbox/index.js";
import { CustomCalendar, type CustomConfig } from "./custom.js";
import { parseCalendarYaml } from "./load.js";
import { ScriptedCalendar } from "./script.js";

const SCRIPT = `
function format(seconds, d) {
  return d.era + " year " + d.yearOfEra + ", " + d.monthName + " " + d.day + " (" + d.weekdayName + ")";
}
function parse(text) {
  const m = /^(\\S+) year (\\d+), (\\S+) (\\d+)(?: \\(\\S+\\))?$/.exec(text);
  if (!m) throw new Error("not a date: " + text);
  return { era: m[1], year: Number(m[2]), month: m[3], day: Number(m[4]) };
}`;

const settings = (script: string): CustomConfig => ({
  type: "custom",
  months: [
    { name: "Ice", days: 40 },
    { name: "Sun", days: 40, leapDays: 1 },
  ],
  leap: { every: 2 },
  eras: [{ name: "Reign", start: 1 }],
  beforeEra: "Chaos",
  weekdays: { names: ["Low", "High"] },
  script,
});

const scripted = (script: string) => {
  const base = new CustomCalendar(settings(script));
  return new ScriptedCalendar(base, base.script!);
};

describe("ScriptedCalendar", () => {
  beforeAll(async () => {
    await Promise.all([loadSandbox(), prepareContained()]);
  });

  it("formats and parses through JavaScript run in the sandbox, to the precision it shows", () => {
    const c = scripted(SCRIPT);
    expect(c.format(0)).toBe("Reign year 1, Ice 1 (Low)");
    expect(c.format(-1)).toBe("Chaos year 1, Sun 41 (High)");
    expect(c.parse("Chaos year 1, Sun 41")).toBe(-86_400);
    for (const t of [0, 86_400 * 45 + 3, -86_400 * 1000 - 7, 86_400 * 123_456]) {
      expect(c.parse(c.format(t))).toBe(Math.floor(t / 86_400) * 86_400);
    }
    expect(c.format(86_400 * 41, "{year}/{month}/{day}")).toBe("1/2/2");
    expect(c.describe().examples[0]).toBe("Reign year 1, Ice 1 (Low)");
  });

  it("range-checks the date a script's parse returns", () => {
    const c = scripted(SCRIPT);
    expect(errorOf(() => c.parse("Reign year 3, Sun 41")).message).toBe(
      "day 41 out of range 1..40 in Sun 3 Reign",
    );
    expect(errorOf(() => c.parse("Dusk year 2, Sun 4")).message).toContain('unknown era "Dusk"');
    expect(errorOf(() => c.parse("Reign year 2, Moon 4")).message).toBe('unknown month "Moon"');
  });

  it("reports the script's own errors with their line, and wrong return types", () => {
    const c = scripted(SCRIPT);
    const e = errorOf(() => c.parse("yesterday"));
    expect(e.code).toBe("invalid_input");
    expect(e.message).toContain("calendar script parse:");
    expect(e.message).toContain("not a date: yesterday");
    expect(e.message).toContain("line 7");
    const wrong = scripted("function format(s) { return s * 2 } function parse(t) { return [1] }");
    expect(errorOf(() => wrong.format(3)).message).toBe(
      "calendar script: format(3) returned number, not a string",
    );
    expect(errorOf(() => wrong.parse("x")).message).toContain("returned an array");
    const missing = scripted("function format(s) { return 'x' }");
    expect(errorOf(() => missing.parse("x")).message).toContain("defines no function parse");
  });

  it("gives the script no host access, stops a runaway script and keeps working", () => {
    const probe = scripted(
      "function format(s) { return [typeof process, typeof require, typeof fetch].join(',') } function parse() { return 0 }",
    );
    expect(probe.format(0)).toBe("undefined,undefined,undefined");
    const looping = scripted("function format(s) { for (;;) {} } function parse() { return 0 }");
    expect(errorOf(() => looping.format(0)).code).toBe("timeout");
    expect(scripted(SCRIPT).format(0)).toBe("Reign year 1, Ice 1 (Low)");
  });

  it("kills a script stuck in a builtin at its time limit, and does not run it again", () => {
    const bomb =
      "function format(s) { return String(Array.prototype.indexOf.call({length: 2**40}, 1)) } function parse() { return 0 }";
    const c = scripted(bomb);
    const first = errorOf(() => c.format(0));
    expect(first.code).toBe("timeout");
    expect(first.message).toBe(
      "calendar script format: Script timed out after 1 s (it is not run again until world-engine/calendar.yaml changes)",
    );
    expect(errorOf(() => c.parse("x"))).toBe(first);
    expect(scripted(SCRIPT).format(0)).toBe("Reign year 1, Ice 1 (Low)");
  });

  it("can be called from inside another sandbox run, as world.time.format is", () => {
    const c = scripted(SCRIPT);
    const r = runScriptSync({
      code: "return time.format(86400 * 40)",
      api: { time: { format: (t) => c.format(t as number) } },
    });
    expect(r.value).toBe("Reign year 1, Sun 1 (Low)");
  });

  it("is built from calendar.yaml when the custom settings carry a script", () => {
    const yaml = [
      "type: custom",
      "months: [{ name: Ice, days: 40 }, { name: Sun, days: 40 }]",
      "script: |",
      "  function format(s, d) { return 'Y' + d.year + ' D' + (d.month === 1 ? d.day : d.day + 40) }",
      "  function parse(t) { const m = /^Y(-?\\d+) D(\\d+)$/.exec(t); const n = Number(m[2]);",
      "    return n > 40 ? { year: Number(m[1]), month: 2, day: n - 40 } : { year: Number(m[1]), day: n } }",
      "",
    ].join("\n");
    const c = parseCalendarYaml(yaml);
    expect(c).toBeInstanceOf(ScriptedCalendar);
    expect(c.format(86_400 * 79)).toBe("Y1 D80");
    expect(c.parse("Y0 D80")).toBe(-86_400);
  });
});
