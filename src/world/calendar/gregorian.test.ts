import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { errorOf } from "../../../test/errors.js";
import { expectRoundTrips } from "../../../test/world/calendar-round-trip.js";
import { GregorianCalendar } from "./gregorian.js";

const MAX = Number.MAX_SAFE_INTEGER;
const DATE_MS = 8.64e15;
const ISO = "{year}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}";

const pad = (n: number, w: number) => String(n).padStart(w, "0");

describe("GregorianCalendar", () => {
  const g = new GregorianCalendar();

  it("puts the zero point at 0001-01-01 00:00:00 AD and counts 1 BC before it", () => {
    expect(g.format(0)).toBe("0001-01-01 00:00:00 AD");
    expect(g.format(-1)).toBe("0001-12-31 23:59:59 BC");
    expect(g.parse("0001-01-01 00:00:00 BC")).toBe(-366 * 86_400);
    expect(g.format(GregorianCalendar.UNIX_EPOCH)).toBe("1970-01-01 00:00:00 AD");
    expect(g.parse("2020-04-12 18:00:00 AD")).toBe(GregorianCalendar.UNIX_EPOCH + 1_586_714_400);
  });

  it("treats 1 BC as a leap year and 2 BC as a common one", () => {
    expect(g.format(g.parse("0001-02-29 12:00:00 BC"))).toBe("0001-02-29 12:00:00 BC");
    expect(errorOf(() => g.parse("0002-02-29 00:00:00 BC")).message).toBe(
      "day 29 out of range 1..28 in February 2 BC",
    );
  });

  it("names the field that is out of range", () => {
    expect(g.parse("2000-02-29 00:00:00 AD")).toBeGreaterThan(0);
    const cases: Array<[string, string]> = [
      ["2001-02-29 00:00:00 AD", "day 29 out of range 1..28 in February 2001 AD"],
      ["2001-13-01 00:00:00 AD", "month 13 out of range 1..12"],
      ["2001-00-01 00:00:00 AD", "month 0 out of range 1..12"],
      ["2001-04-31 00:00:00 AD", "day 31 out of range 1..30 in April 2001 AD"],
      ["2001-01-01 24:00:00 AD", "hour 24 out of range 0..23"],
      ["2001-01-01 00:60:00 AD", "minute 60 out of range 0..59"],
      ["2001-01-01 00:00:60 AD", "second 60 out of range 0..59"],
      ["0000-01-01 00:00:00 AD", "year 0 out of range 1.. of AD"],
    ];
    for (const [text, message] of cases) {
      const e = errorOf(() => g.parse(text));
      expect(e.code).toBe("invalid_input");
      expect(e.message).toBe(message);
    }
  });

  it("rejects text that does not have the format's shape, showing an example", () => {
    const e = errorOf(() => g.parse("April 12, 2020"));
    expect(e.code).toBe("invalid_input");
    expect(e.message).toContain('"0001-01-01 00:00:00 AD"');
  });

  it("refuses times outside the safe-integer range in both directions", () => {
    expect(errorOf(() => g.format(MAX + 1)).code).toBe("invalid_input");
    expect(errorOf(() => g.format(1.5)).code).toBe("invalid_input");
    const e = errorOf(() => g.parse("1000000000-01-01 00:00:00 AD"));
    expect(e.code).toBe("invalid_input");
    expect(e.message).toMatch(
      /^year 1000000000 AD out of range: the calendar reaches from \d+ BC to \d+ AD$/,
    );
    expect(g.parse(g.format(MAX))).toBe(MAX);
    expect(g.parse(g.format(-MAX))).toBe(-MAX);
  });

  it("agrees with JavaScript's Date (proleptic UTC) across Date's whole range", () => {
    fc.assert(
      fc.property(fc.integer({ min: -DATE_MS, max: DATE_MS }), (ms) => {
        const d = new Date(ms);
        const t = Math.floor(ms / 1000) + GregorianCalendar.UNIX_EPOCH;
        const y = d.getUTCFullYear();
        const expected = `${y < 0 ? "-" : ""}${Math.abs(y)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`;
        expect(g.format(t, ISO)).toBe(expected);
        expect(g.parse(expected, ISO)).toBe(t);
        expect(g.format(t, "{weekday}")).toBe(
          ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"][d.getUTCDay()],
        );
      }),
      { numRuns: 3000 },
    );
  });

  it("agrees with Date at the edges of Date's range and around the calendar reform", () => {
    for (const ms of [
      -DATE_MS,
      DATE_MS,
      Date.UTC(1582, 9, 15),
      Date.UTC(1600, 1, 29),
      Date.UTC(1900, 2, 1),
      -62_135_596_800_000,
    ]) {
      const d = new Date(ms);
      const t = Math.floor(ms / 1000) + GregorianCalendar.UNIX_EPOCH;
      expect(g.format(t, "{year}|{month}|{day}")).toBe(
        `${d.getUTCFullYear()}|${d.getUTCMonth() + 1}|${d.getUTCDate()}`,
      );
    }
  });

  it("round-trips every instant in the safe range through the default format", () => {
    expectRoundTrips(g, 3000);
  });

  it("parses padded formats back to the precision they show", () => {
    const formats: Array<[string, (t: number) => number]> = [
      ["{year:04}/{month:02}/{day:02} {hour:02}:{minute:02} {era}", (t) => t - (((t % 60) + 60) % 60)],
      ["{era} {year:06}.{month:02}.{day:02}", (t) => t - (((t % 86_400) + 86_400) % 86_400)],
      ["{year:04}{month:02}{day:02}{hour:02}{minute:02}{second:02}", (t) => t],
      [
        "{weekday}, {day:02} {month:name} {year:04} {era} {hour:02}h",
        (t) => t - (((t % 3600) + 3600) % 3600),
      ],
    ];
    for (const [fmt, expected] of formats) {
      fc.assert(
        // Start a year in: rounding the first partial day down would leave the safe range.
        fc.property(fc.integer({ min: -MAX + 366 * 86_400, max: MAX }), (t) => {
          expect(g.parse(g.format(t, fmt), fmt)).toBe(expected(t));
        }),
        { numRuns: 500 },
      );
    }
    expect(g.format(0, "{year:04}{month:02}{day:02}")).toBe("00010101");
    expect(g.parse("0001/03/01 10:05 BC", formats[0][0])).toBe(g.parse("0001-03-01 10:05:00 BC"));
  });

  it("parses month-precision and year-precision formats to the first second of the period", () => {
    expect(g.parse("2024-03", "{year}-{month:02}")).toBe(g.parse("2024-03-01 00:00:00 AD"));
    expect(g.parse("5 BC", "{year} {era}")).toBe(g.parse("0005-01-01 00:00:00 BC"));
  });

  it("tells era words apart even when one contains the other", () => {
    const c = new GregorianCalendar({ type: "gregorian", eras: { after: "CE", before: "BCE" } });
    expect(c.format(-1)).toBe("0001-12-31 23:59:59 BCE");
    expect(c.parse("0005-06-01 00:00:00 BCE")).toBeLessThan(0);
    expect(c.parse("0005-06-01 00:00:00 CE")).toBeGreaterThan(0);
    expect(errorOf(() => c.parse("0005-06-01 00:00:00 XCE")).code).toBe("invalid_input");
  });

  it("uses 公元/公元前 for Chinese projects", () => {
    const zh = new GregorianCalendar({ type: "gregorian", language: "zh" });
    expect(zh.format(0)).toBe("公元1年01月01日 00:00:00");
    expect(zh.format(-1)).toBe("公元前1年12月31日 23:59:59");
    expect(zh.parse("公元前1年12月31日 23:59:59")).toBe(-1);
    expect(zh.parse("公元2026年06月01日 08:30:00")).toBe(
      zh.parse("公元2026年6月1日 08:30", "{era}{year}年{month}月{day}日 {hour:02}:{minute:02}"),
    );
    expect(zh.format(0, "{weekday}")).toBe("星期一");
  });

  it("checks a weekday that the text gives against the date", () => {
    const fmt = "{weekday} {year:04}-{month:02}-{day:02} {era}";
    expect(g.format(g.parse("Monday 2024-01-01 AD", fmt), fmt)).toBe("Monday 2024-01-01 AD");
    expect(errorOf(() => g.parse("Tuesday 2024-01-01 AD", fmt)).message).toContain("falls on Monday");
  });

  it("rejects invalid settings with config_error and bad ad-hoc formats with invalid_input", () => {
    const bad: unknown[] = [
      { type: "gregorian", eras: { after: "AD", before: "AD" } },
      { type: "gregorian", format: "{year}-{day}" },
      { type: "gregorian", format: "{mon}" },
      { type: "gregorian", format: "{year}{month}{day}" },
      { type: "gregorian", monthNames: ["a"] },
      { type: "gregorian", colour: "blue" },
    ];
    for (const config of bad) {
      const e = errorOf(() => new GregorianCalendar(config as never));
      expect(e.code).toBe("config_error");
      expect(e.fields?.[0].pointer).toMatch(/^\//);
    }
    expect(
      errorOf(() => new GregorianCalendar({ type: "gregorian", format: "{year}-{day}" })).message,
    ).toContain("shows {day} but not {month}");
    expect(errorOf(() => new GregorianCalendar({ type: "gregorian", format: "{mon}" })).message).toContain(
      "unknown field {mon}",
    );
    expect(errorOf(() => g.format(0, "{mon}")).code).toBe("invalid_input");
    expect(g.format(0, "{day}. {month:name}")).toBe("1. January");
    const gap = errorOf(() => g.parse("1", "{day}"));
    expect(gap.code).toBe("invalid_input");
    expect(gap.message).toContain("must show {year}");
  });

  it("describes itself with its format, precision and examples", () => {
    const d = g.describe();
    expect(d.kind).toBe("gregorian");
    expect(d.precision).toBe("second");
    expect(d.zero).toBe("0001-01-01 00:00:00 AD");
    expect(d.examples).toContain("2024-01-01 12:34:56 AD");
    expect(new GregorianCalendar({ type: "gregorian", format: "{year} {era}" }).describe().precision).toBe(
      "year",
    );
  });
});
