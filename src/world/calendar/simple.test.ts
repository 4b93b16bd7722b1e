import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { errorOf } from "../../../test/errors.js";
import { expectRoundTrips } from "../../../test/world/calendar-round-trip.js";
import { SimpleCalendar, type SimpleConfig } from "./simple.js";

const MAX = Number.MAX_SAFE_INTEGER;
const DAY = 86_400;
const WEEK = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

const chain: SimpleConfig = {
  type: "simple",
  units: [
    { name: "minute", length: 60 },
    { name: "hour", length: 60 },
    { name: "day", length: 24, start: 1 },
    { name: "month", length: 30, start: 1 },
    { name: "year", length: 12, start: 1 },
  ],
  cycles: [{ name: "weekday", unit: "day", names: WEEK }],
  eras: { after: "NE", before: "OE" },
  format: "{era} {year}-{month:02}-{day:02} {hour:02}:{minute:02}:{second:02} {weekday}",
};

describe("SimpleCalendar", () => {
  const c = new SimpleCalendar(chain);

  it("breaks seconds down along the chain", () => {
    expect(c.format(0)).toBe("NE 1-01-01 00:00:00 Mon");
    expect(c.format(3_661)).toBe("NE 1-01-01 01:01:01 Mon");
    expect(c.format(30 * DAY)).toBe("NE 1-02-01 00:00:00 Wed");
    expect(c.format(360 * DAY + 59)).toBe("NE 2-01-01 00:00:59 Thu");
    expect(c.parse("NE 2-01-01 00:00:59 Thu")).toBe(360 * DAY + 59);
  });

  it("keeps the weekday cycle beside the chain: weeks never shift months or years", () => {
    for (let d = 0; d < 400; d++) {
      const text = c.format(d * DAY + 12 * 3600);
      expect(text.endsWith(WEEK[d % 7])).toBe(true);
      expect(c.parse(text)).toBe(d * DAY + 12 * 3600);
    }
    expect(c.format(7 * DAY)).toBe("NE 1-01-08 00:00:00 Mon");
  });

  it("round-trips every instant, weekday included, across the safe range", () => {
    expectRoundTrips(c, 3000);
  });

  it("round-trips times before zero, in the before era", () => {
    expect(c.format(-1)).toBe("OE 1-12-30 23:59:59 Sun");
    expect(c.parse("OE 1-12-30 23:59:59 Sun")).toBe(-1);
    expect(c.format(-360 * DAY)).toBe("OE 1-01-01 00:00:00 Fri");
    expect(c.format(-360 * DAY - 1)).toBe("OE 2-12-30 23:59:59 Thu");
    fc.assert(
      fc.property(fc.integer({ min: -MAX, max: -1 }), (t) => {
        const text = c.format(t);
        expect(text.startsWith("OE ")).toBe(true);
        expect(c.parse(text)).toBe(t);
      }),
    );
  });

  it("shows the top unit signed when the format has no era", () => {
    const fmt = "{year}/{month}/{day} {hour:02}:{minute:02}:{second:02}";
    expect(c.format(-1, fmt)).toBe("0/12/30 23:59:59");
    expect(c.format(-360 * DAY - 1, fmt)).toBe("-1/12/30 23:59:59");
    expectRoundTrips(c, undefined, fmt);
  });

  it("range-checks every unit on parse, the base and the one above it included", () => {
    const cases: Array<[string, string]> = [
      ["NE 1-13-01 00:00:00", "month 13 out of range 1..12"],
      ["NE 1-01-31 00:00:00", "day 31 out of range 1..30"],
      ["NE 1-01-00 00:00:00", "day 0 out of range 1..30"],
      ["NE 1-01-01 24:00:00", "hour 24 out of range 0..23"],
      ["NE 1-01-01 00:99:00", "minute 99 out of range 0..59"],
      ["NE 1-01-01 00:00:60", "second 60 out of range 0..59"],
      ["NE 0-01-01 00:00:00", "year 0 out of range 1.. of NE"],
    ];
    const fmt = "{era} {year}-{month:02}-{day:02} {hour:02}:{minute:02}:{second:02}";
    for (const [text, message] of cases) {
      const e = errorOf(() => c.parse(text, fmt));
      expect(e.code).toBe("invalid_input");
      expect(e.message).toBe(message);
    }
  });

  it("rejects a weekday that does not match the date", () => {
    const e = errorOf(() => c.parse("NE 1-01-01 00:00:00 Tue"));
    expect(e.code).toBe("invalid_input");
    expect(e.message).toContain("weekday Tue does not match the date, which is Mon");
  });

  it("reads the reference fixture: minute, hour, day with day counted from 1", () => {
    const f = new SimpleCalendar({
      type: "simple",
      units: [
        { name: "minute", length: 60 },
        { name: "hour", length: 60 },
        { name: "day", length: 24, start: 1 },
      ],
      format: "{day}日 {hour:02}:{minute:02}:{second:02}",
    });
    expect(f.format(3661)).toBe("1日 01:01:01");
    expect(f.parse("1日 01:01:01")).toBe(3661);
    expect(f.parse("0日 23:59:59")).toBe(-1);
  });

  it("shows unit values by name and parses them back", () => {
    const named = new SimpleCalendar({
      type: "simple",
      base: "tick",
      units: [
        { name: "bell", length: 3600 },
        { name: "day", length: 10, start: 1 },
        { name: "moon", length: 3, start: 1, names: ["Ash", "Rain", "Frost"] },
        { name: "turn", length: 3 },
      ],
      format: "{turn}: {moon:name} {day}, bell {bell}",
    });
    expect(named.format(0)).toBe("0: Ash 1, bell 0");
    const t = 324_000 + 108_000 + 36_000 + 7200;
    expect(named.format(t)).toBe("1: Rain 2, bell 2");
    expect(named.parse("1: Rain 2, bell 2")).toBe(t);
    expect(named.describe().precision).toBe("bell");
    expect(errorOf(() => named.parse("1: Snow 1, bell 2")).message).toContain(
      "does not match the calendar format",
    );
  });

  it("rejects invalid settings with config_error at the offending setting", () => {
    const bad: Array<[SimpleConfig, string, string]> = [
      [
        { ...chain, units: [{ name: "minute", length: 60, names: ["a", "b"] }, ...chain.units.slice(1)] },
        "/units/0/names",
        "2 names",
      ],
      [
        { ...chain, cycles: [{ name: "weekday", unit: "week", names: WEEK }] },
        "/cycles/0/unit",
        "unknown unit",
      ],
      [{ ...chain, cycles: [{ name: "hour", unit: "day", names: WEEK }] }, "/units", "used twice"],
      [
        {
          ...chain,
          units: [
            { name: "eon", length: 2 ** 40 },
            { name: "aeon", length: 2 ** 20 },
          ],
        },
        "/units/1/length",
        "safe-integer",
      ],
      [{ ...chain, format: "{era} {year}-{day}" }, "/format", "shows {day} but not {month}"],
      [{ ...chain, format: "{month}-{day}" }, "/format", "must show {year}"],
      [{ ...chain, format: "{year}{month}{day}" }, "/format", "cannot read back"],
      [{ ...chain, units: [] }, "/units", "Too small"],
    ];
    for (const [config, pointer, text] of bad) {
      const e = errorOf(() => new SimpleCalendar(config));
      expect(e.code).toBe("config_error");
      expect(e.fields?.[0].pointer).toBe(pointer);
      expect(e.message).toContain(text);
    }
    const noEras = errorOf(() => new SimpleCalendar({ ...chain, eras: undefined }));
    expect(noEras.message).toContain("unknown field {era}");
  });

  it("describes its precision, zero and chain", () => {
    const d = c.describe();
    expect(d.kind).toBe("simple");
    expect(d.precision).toBe("second");
    expect(d.zero).toBe("NE 1-01-01 00:00:00 Mon");
    expect(d.examples[1]).toBe("OE 1-12-30 23:59:59 Sun");
  });
});
