import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { errorOf } from "../../../test/errors.js";
import { expectRoundTrips } from "../../../test/world/calendar-round-trip.js";
import { CustomCalendar, type CustomConfig } from "./custom.js";

// 20-hour days of 50 minutes of 100 seconds; a leap month that exists only in leap years.
const config: CustomConfig = {
  type: "custom",
  months: [
    { name: "Thaw", days: 30 },
    { name: "Bloom", days: 31, leapDays: 1 },
    { name: "Moonsday", days: 0, leapDays: 1 },
    { name: "Fall", days: 29 },
  ],
  leap: { every: 3, except: 30, unless: 90, offset: 1 },
  day: { hours: 20, minutes: 50, seconds: 100 },
  eras: [
    { name: "Dawn", start: 1 },
    { name: "Crown", start: 101 },
  ],
  beforeEra: "Dark",
  weekdays: { names: ["Sun", "Moon", "Star", "Sea", "Stone"], offset: 2 },
  format: "{weekday}, {day} {month:name} {year} {era}, {hour:02}:{minute:02}:{second:02}",
};
const SECONDS_PER_DAY = 20 * 50 * 100;

function isLeap(year: number): boolean {
  const r = year - 1;
  const div = (n: number) => ((r % n) + n) % n === 0;
  return div(3) && (!div(30) || div(90));
}

/** Year-by-year reference: internal year, month (1-based) and day of `days` since the zero day. */
function naiveDate(days: number): [number, number, number] {
  let year = 1;
  let rest = days;
  const length = (y: number) => 90 + (isLeap(y) ? 2 : 0);
  while (rest < 0) {
    year--;
    rest += length(year);
  }
  while (rest >= length(year)) {
    rest -= length(year);
    year++;
  }
  const months = [30, isLeap(year) ? 32 : 31, isLeap(year) ? 1 : 0, 29];
  let month = 0;
  while (rest >= months[month]) rest -= months[month++];
  return [year, month + 1, rest + 1];
}

describe("CustomCalendar", () => {
  const c = new CustomCalendar(config);
  const ISO = "{year}/{month}/{day} {hour}:{minute}:{second}";

  it("formats the zero point and the moments around it", () => {
    expect(c.format(0)).toBe("Star, 1 Thaw 1 Dawn, 00:00:00");
    expect(c.format(-1)).toBe("Moon, 29 Fall 1 Dark, 19:49:99");
    expect(c.format(SECONDS_PER_DAY * 30 + 150)).toBe("Star, 1 Bloom 1 Dawn, 00:01:50");
  });

  it("agrees with a year-by-year reference for its leap rule, in both directions of time", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -4_000 * 92 * SECONDS_PER_DAY, max: 4_000 * 92 * SECONDS_PER_DAY }),
        (t) => {
          const days = Math.floor(t / SECONDS_PER_DAY);
          const rest = t - days * SECONDS_PER_DAY;
          const [y, m, d] = naiveDate(days);
          const expected = `${y}/${m}/${d} ${Math.floor(rest / 5000)}:${Math.floor(rest / 100) % 50}:${rest % 100}`;
          expect(c.format(t, ISO)).toBe(expected);
          expect(c.parse(expected, ISO)).toBe(t);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("round-trips the default format across the safe range", () => {
    expectRoundTrips(c, 2000);
  });

  it("has the leap month only in leap years", () => {
    expect(isLeap(4)).toBe(true);
    expect(
      c.format(c.parse("1/3/1 0:0:0", "{year}/{month}/{day} {hour}:{minute}:{second}"), "{month:name}"),
    ).toBe("Moonsday");
    expect(c.parse("Moon, 1 Moonsday 4 Dawn, 00:00:00")).toBe(c.parse("4/3/1 0:0:0", ISO));
    const e = errorOf(() => c.parse("5/3/1 0:0:0", ISO));
    expect(e.code).toBe("invalid_input");
    expect(e.message).toBe("month 3 (Moonsday) does not exist in year 5 Dawn");
    expect(errorOf(() => c.parse("5/2/32 0:0:0", ISO)).message).toBe(
      "day 32 out of range 1..31 in Bloom 5 Dawn",
    );
    expect(c.parse("4/2/32 0:0:0", ISO)).toBeGreaterThan(0);
  });

  it("labels years by era and checks the year against the era's span", () => {
    const yearStart = (text: string) => c.format(c.parse(text, "{year} {era}"), "{year} {era}");
    expect(yearStart("100 Dawn")).toBe("100 Dawn");
    expect(c.parse("1 Crown", "{year} {era}")).toBe(c.parse("101", "{year}"));
    expect(c.parse("1 Dark", "{year} {era}")).toBe(c.parse("0", "{year}"));
    expect(errorOf(() => c.parse("101 Dawn", "{year} {era}")).message).toBe(
      "year 101 out of range 1..100 of Dawn",
    );
    expect(errorOf(() => c.parse("0 Crown", "{year} {era}")).message).toBe(
      "year 0 out of range 1.. of Crown",
    );
  });

  it("checks day, hour, minute and second against its own day length", () => {
    const cases: Array<[string, string]> = [
      ["1/1/31 0:0:0", "day 31 out of range 1..30 in Thaw 1 Dawn"],
      ["1/5/1 0:0:0", "month 5 out of range 1..4"],
      ["1/1/1 20:0:0", "hour 20 out of range 0..19"],
      ["1/1/1 0:50:0", "minute 50 out of range 0..49"],
      ["1/1/1 0:0:100", "second 100 out of range 0..99"],
    ];
    for (const [text, message] of cases) expect(errorOf(() => c.parse(text, ISO)).message).toBe(message);
    expect(errorOf(() => c.parse("Sun, 1 Thaw 1 Dawn, 00:00:00")).message).toContain("which falls on Star");
  });

  it("works without eras, leap rule or weekdays, showing signed years", () => {
    const plain = new CustomCalendar({
      type: "custom",
      months: [
        { name: "Light", days: 100 },
        { name: "Dark", days: 100 },
      ],
      format: "{year}.{month}.{day}",
    });
    expect(plain.format(0)).toBe("1.1.1");
    expect(plain.format(-1)).toBe("0.2.100");
    expect(plain.parse("-3.2.100")).toBe(-86_400 * 3 * 200 - 86_400);
    expect(plain.describe().precision).toBe("day");
  });

  it("rejects inconsistent settings with config_error at the setting", () => {
    const bad: Array<[Partial<CustomConfig>, string, string]> = [
      [{ leap: undefined }, "/leap", "no leap rule"],
      [
        { months: [{ name: "A", days: 10 }], leap: { every: 4 } },
        "/leap",
        "needs at least one month with leapDays",
      ],
      [{ leap: { every: 4, except: 10 } }, "/leap/except", "multiple of every"],
      [{ leap: { every: 4, unless: 400 } }, "/leap/unless", "needs except"],
      [
        {
          eras: [
            { name: "A", start: 10 },
            { name: "B", start: 5 },
          ],
        },
        "/eras/1/start",
        "increasing",
      ],
      [{ beforeEra: undefined }, "/beforeEra", "required"],
      [{ beforeEra: "Dawn" }, "/eras", "used twice"],
      [{ months: [{ name: "A", days: 0 }], leap: undefined }, "/months/0/days", "has no days"],
      [{ weekdays: { names: ["x", "x"] } }, "/weekdays/names", "used twice"],
      [{ format: "{day} {year}" }, "/format", "shows {day} but not {month}"],
    ];
    for (const [patch, pointer, text] of bad) {
      const e = errorOf(() => new CustomCalendar({ ...config, ...patch }));
      expect(e.code).toBe("config_error");
      expect(e.fields?.map((f) => f.pointer)).toContain(pointer);
      expect(e.message).toContain(text);
    }
  });
});
