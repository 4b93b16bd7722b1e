import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { errorOf } from "../../../test/errors.js";
import { defaultCalendarYaml } from "../../workspace/calendar-seed.js";
import { Workspace } from "../../workspace/workspace.js";
import { CALENDAR_FILE, loadCalendar, openCalendar, parseCalendarYaml } from "./index.js";

describe("parseCalendarYaml", () => {
  it("names the line of a YAML syntax error", () => {
    const e = errorOf(() => parseCalendarYaml("type: gregorian\nformat: [unclosed\neras: {}\n"));
    expect(e.code).toBe("config_error");
    expect(e.message).toMatch(/^calendar\.yaml line \d+: /);
    const dup = errorOf(() => parseCalendarYaml("type: gregorian\ntype: simple\n"));
    expect(dup.message).toMatch(/^calendar\.yaml line 2: .*unique/);
  });

  it("names the line and the setting of an invalid value", () => {
    const text = [
      "type: custom",
      "months:",
      "  - name: Thaw",
      "    days: 30",
      "  - name: Bloom",
      "    days: -4",
      'format: "{year} {month} {day}"',
      "",
    ].join("\n");
    const e = errorOf(() => parseCalendarYaml(text));
    expect(e.code).toBe("config_error");
    expect(e.message).toContain("calendar.yaml line 6 (/months/1/days):");
    expect(e.fields?.[0].pointer).toBe("/months/1/days");
  });

  it("reports a format problem at the format line and an unknown type at the type line", () => {
    const fmt = errorOf(() => parseCalendarYaml('# comment\ntype: gregorian\nformat: "{year}-{day}"\n'));
    expect(fmt.message).toMatch(
      /^calendar\.yaml line 3 \(\/format\): format "\{year\}-\{day\}" shows \{day\} but not \{month\}/,
    );
    const type = errorOf(() => parseCalendarYaml("type: lunar\n"));
    expect(type.message).toBe(
      'calendar.yaml line 1 (/type): calendar type "lunar" is unknown (use gregorian, simple or custom)',
    );
    const missing = errorOf(() => parseCalendarYaml("format: x\n"));
    expect(missing.message).toContain("calendar type is missing");
    expect(errorOf(() => parseCalendarYaml("")).code).toBe("config_error");
  });

  it("reads all three kinds", () => {
    expect(parseCalendarYaml("type: gregorian\n").format(0)).toBe("0001-01-01 00:00:00 AD");
    expect(parseCalendarYaml("type: gregorian\n", "zh").format(0)).toBe("公元1年01月01日 00:00:00");
    const simple = parseCalendarYaml(
      "type: simple\nunits:\n  - { name: minute, length: 60 }\n  - { name: hour, length: 60 }\n  - { name: day, length: 24, start: 1 }\nformat: 'Day {day}, {hour:02}:{minute:02}:{second:02}'\n",
    );
    expect(simple.format(90_061)).toBe("Day 2, 01:01:01");
    const custom = parseCalendarYaml(
      "type: custom\nmonths:\n  - { name: Ice, days: 50 }\n  - { name: Sun, days: 50 }\nformat: '{day} {month:name} {year}'\n",
    );
    expect(custom.parse("1 Sun 2")).toBe((100 + 50) * 86_400);
  });

  it("accepts every calendar example in docs/world-engine.md", () => {
    const md = readFileSync(new URL("../../../docs/world-engine.md", import.meta.url), "utf8");
    const blocks = [...md.matchAll(/```yaml\n(type: (?:gregorian|simple|custom)\n[\s\S]*?)```/g)].map(
      (m) => m[1],
    );
    expect(blocks.length).toBe(3);
    for (const yaml of blocks) {
      const c = parseCalendarYaml(yaml);
      expect(c.parse(c.format(-123_456_789))).toBe(-123_456_789);
    }
  });

  it("seeds a Gregorian calendar whose era words follow the project language", () => {
    const en = parseCalendarYaml(defaultCalendarYaml({ language: "en" }));
    expect(en.format(-1)).toBe("0001-12-31 23:59:59 BC");
    const zh = parseCalendarYaml(defaultCalendarYaml({ language: "zh" }), "en");
    expect(zh.format(-1)).toBe("公元前1年12月31日 23:59:59");
  });
});

describe("loadCalendar", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  function makeProject(language: "en" | "zh") {
    dir = mkdtempSync(join(tmpdir(), "nbook-cal-"));
    const ws = Workspace.init(join(dir, "ws"));
    return ws.createProject("novel", { language });
  }

  it("loads the seeded calendar, picks up edits, reports breakage and recovers", () => {
    const project = makeProject("en");
    const file = join(project.root, CALENDAR_FILE);
    expect(readFileSync(file, "utf8")).toContain("type: gregorian");
    const first = loadCalendar(project);
    expect(first.format(0)).toBe("0001-01-01 00:00:00 AD");
    expect(loadCalendar(project)).toBe(first);

    writeFileSync(file, "type: gregorian\nformat: '{year} {era}'\neras: { after: CE, before: BCE }\n");
    expect(loadCalendar(project).format(0)).toBe("1 CE");

    writeFileSync(file, "type: gregorian\nformat: '{year} {era}\n");
    const e = errorOf(() => loadCalendar(project));
    expect(e.code).toBe("config_error");
    expect(e.message).toMatch(/^world-engine\/calendar\.yaml line \d+: /);
    expect(e.message).not.toContain(project.root);

    writeFileSync(file, "type: simple\nunits: [{ name: day, length: 86400 }]\nformat: 'day {day}'\n");
    expect(loadCalendar(project).format(86_400 * 3)).toBe("day 3");
    project.close();
  });

  it("falls back to a Gregorian calendar in the project's language when the file is missing", () => {
    const project = makeProject("zh");
    unlinkSync(join(project.root, CALENDAR_FILE));
    expect(loadCalendar(project).format(-1)).toBe("公元前1年12月31日 23:59:59");
    project.close();
  });

  it("opens a calendar whose format and parse are JavaScript, loading the sandbox first", async () => {
    const project = makeProject("en");
    writeFileSync(
      join(project.root, CALENDAR_FILE),
      "type: custom\nmonths: [{ name: Long, days: 400 }]\nscript: |\n  function format(s, d) { return 'Year ' + d.year }\n  function parse(t) { return { year: Number(t.slice(5)) } }\n",
    );
    const calendar = await openCalendar(project);
    expect(calendar.format(400 * 86_400)).toBe("Year 2");
    expect(calendar.parse("Year -1")).toBe(-2 * 400 * 86_400);
    project.close();
  });
});
