import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { assertInstant, assertSafeResult, floorDiv, mod, rangeError } from "./arith.js";
import { Formats } from "./formats.js";
import { atPointer } from "./settings.js";
import type { FieldSpec } from "./template.js";
import type { Calendar, CalendarDescription, CalendarKind } from "./types.js";

/** One month: its name, its length, and the days it gains in a leap year. */
export interface MonthRule {
  name: string;
  days: number;
  leapDays: number;
}

/**
 * Which years are leap years, on the internal year number minus `offset`: divisible by `every`,
 * except those divisible by `except`, unless divisible by `unless` (Gregorian: 4, 100, 400).
 */
export interface LeapRule {
  every: number;
  except?: number;
  unless?: number;
  offset: number;
}

/** An era begins at internal year `start` and counts its years from 1. */
export interface EraRule {
  name: string;
  start: number;
}

/** Everything a year/month/day calendar needs; Gregorian is one fixed set of these rules. */
export interface SolarRules {
  months: MonthRule[];
  leap?: LeapRule;
  hoursPerDay: number;
  minutesPerHour: number;
  secondsPerMinute: number;
  /** Ascending by start; empty when the calendar has no eras (years are then shown signed). */
  eras: EraRule[];
  /** Name of the era before the first one; its years count backwards from 1. */
  beforeEra?: string;
  /** Weekday names; `offset` is the weekday index of the zero day. */
  weekdays?: { names: string[]; offset: number };
  format: string;
}

/** Broken-down time; `year` is the internal (astronomical) year: 1 is the zero point's year, 0 the one before. */
export interface SolarFields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** A date with names resolved: what `partsOf` returns. */
export interface DateParts extends SolarFields {
  era: string | null;
  yearOfEra: number;
  monthName: string;
  weekday: number | null;
  weekdayName: string | null;
}

/** A date to convert with `secondsOf` (a month by number or name). */
export const DateInputSchema = z
  .object({
    era: z.string().optional(),
    year: z.number().int(),
    month: z.union([z.number().int(), z.string()]).optional(),
    day: z.number().int().optional(),
    hour: z.number().int().optional(),
    minute: z.number().int().optional(),
    second: z.number().int().optional(),
  })
  .strict();
export type DateInput = z.infer<typeof DateInputSchema>;

const UNITS = ["year", "month", "day", "hour", "minute", "second"] as const;

/**
 * A calendar of years made of named months, days, hours, minutes and seconds, with a leap rule,
 * eras and a weekday cycle. Instant 0 is the first second of year 1, month 1, day 1. Every
 * conversion is closed-form: the year of a day comes from the average year length, corrected by
 * at most a step or two, so cost does not grow with the year.
 */
export class SolarCalendar implements Calendar {
  readonly kind: CalendarKind;
  protected readonly rules: SolarRules;
  private readonly secondsPerDay: number;
  private readonly baseYearDays: number;
  private readonly leapExtraDays: number;
  private readonly averageYearDays: number;
  private readonly monthStarts: [number[], number[]];
  private readonly specs: Record<string, FieldSpec>;
  private readonly formats: Formats;
  private readonly yearBounds: [number, number];

  constructor(kind: CalendarKind, rules: SolarRules) {
    this.kind = kind;
    this.rules = rules;
    this.secondsPerDay = rules.hoursPerDay * rules.minutesPerHour * rules.secondsPerMinute;
    this.baseYearDays = rules.months.reduce((n, m) => n + m.days, 0);
    this.leapExtraDays = rules.months.reduce((n, m) => n + m.leapDays, 0);
    const leap = rules.leap;
    const leapShare = leap
      ? 1 / leap.every - (leap.except ? 1 / leap.except : 0) + (leap.unless ? 1 / leap.unless : 0)
      : 0;
    this.averageYearDays = this.baseYearDays + this.leapExtraDays * leapShare;
    this.monthStarts = [false, true].map((isLeap) => {
      const starts: number[] = [];
      let at = 0;
      for (const m of rules.months) {
        starts.push(at);
        at += m.days + (isLeap ? m.leapDays : 0);
      }
      return starts;
    }) as [number[], number[]];
    this.specs = {
      year: { numeric: true },
      month: { numeric: true, names: rules.months.map((m) => m.name), nameBase: 1 },
      day: { numeric: true },
      hour: { numeric: true },
      minute: { numeric: true },
      second: { numeric: true },
    };
    if (rules.eras.length) {
      this.specs.era = {
        numeric: false,
        names: [rules.beforeEra ?? "", ...rules.eras.map((e) => e.name)],
        nameBase: -1,
      };
    }
    if (rules.weekdays) this.specs.weekday = { numeric: false, names: rules.weekdays.names };
    this.yearBounds = [
      this.yearOfDay(floorDiv(-Number.MAX_SAFE_INTEGER, this.secondsPerDay)),
      this.yearOfDay(floorDiv(Number.MAX_SAFE_INTEGER, this.secondsPerDay)),
    ];
    try {
      this.formats = new Formats(this.specs, UNITS, rules.format);
      this.checkRoundTrip();
    } catch (e) {
      throw atPointer(e, "/format");
    }
  }

  /** True when internal year `year` is a leap year. */
  isLeapYear(year: number): boolean {
    const leap = this.rules.leap;
    if (!leap) return false;
    const r = year - leap.offset;
    if (mod(r, leap.every) !== 0) return false;
    if (leap.except === undefined || mod(r, leap.except) !== 0) return true;
    return leap.unless !== undefined && mod(r, leap.unless) === 0;
  }

  /** Seconds → broken-down fields (internal year). */
  toFields(seconds: number): SolarFields {
    assertInstant(seconds);
    const { minutesPerHour, secondsPerMinute } = this.rules;
    const days = floorDiv(seconds, this.secondsPerDay);
    const secondOfDay = seconds - days * this.secondsPerDay;
    const year = this.yearOfDay(days);
    const dayOfYear = days - this.daysBeforeYear(year);
    const starts = this.monthStarts[this.isLeapYear(year) ? 1 : 0];
    let month = starts.length;
    while (month > 1 && starts[month - 1] > dayOfYear) month--;
    return {
      year,
      month,
      day: dayOfYear - starts[month - 1] + 1,
      hour: Math.floor(secondOfDay / (minutesPerHour * secondsPerMinute)),
      minute: Math.floor(secondOfDay / secondsPerMinute) % minutesPerHour,
      second: secondOfDay % secondsPerMinute,
    };
  }

  /** Broken-down fields (internal year) → seconds, range-checking every field. */
  fromFields(f: SolarFields): number {
    const { months, hoursPerDay, minutesPerHour, secondsPerMinute } = this.rules;
    const [minYear, maxYear] = this.yearBounds;
    if (f.year < minYear || f.year > maxYear) {
      throw new NbError(
        "invalid_input",
        `year ${this.yearLabel(f.year)} out of range: the calendar reaches from ${this.yearLabel(minYear)} to ${this.yearLabel(maxYear)}`,
      );
    }
    if (f.month < 1 || f.month > months.length) throw rangeError("month", f.month, 1, months.length);
    const isLeap = this.isLeapYear(f.year);
    const m = months[f.month - 1];
    const length = m.days + (isLeap ? m.leapDays : 0);
    if (length === 0) {
      throw new NbError(
        "invalid_input",
        `month ${f.month} (${m.name}) does not exist in year ${this.yearLabel(f.year)}`,
      );
    }
    if (f.day < 1 || f.day > length) {
      throw rangeError("day", f.day, 1, length, `in ${m.name} ${this.yearLabel(f.year)}`);
    }
    if (f.hour < 0 || f.hour >= hoursPerDay) throw rangeError("hour", f.hour, 0, hoursPerDay - 1);
    if (f.minute < 0 || f.minute >= minutesPerHour)
      throw rangeError("minute", f.minute, 0, minutesPerHour - 1);
    if (f.second < 0 || f.second >= secondsPerMinute)
      throw rangeError("second", f.second, 0, secondsPerMinute - 1);
    const days = this.daysBeforeYear(f.year) + this.monthStarts[isLeap ? 1 : 0][f.month - 1] + f.day - 1;
    return days * this.secondsPerDay + (f.hour * minutesPerHour + f.minute) * secondsPerMinute + f.second;
  }

  /** Seconds → calendar string, in the default format or in `fmt`. */
  format(seconds: number, fmt?: string): string {
    const template = this.formats.forFormat(fmt);
    const f = this.toFields(seconds);
    const values: Record<string, number> = { ...f };
    if (template.fields.has("era")) {
      const era = this.eraOf(f.year);
      values.era = era.index;
      values.year = era.yearOfEra;
    }
    if (this.rules.weekdays) values.weekday = this.weekdayOf(seconds);
    return template.render(values);
  }

  /** Calendar string (default format, or `fmt`) → seconds; the parts the format omits count from their start. */
  parse(text: string, fmt?: string): number {
    const { input, values } = this.formats.match(text, fmt, () => this.format(0, fmt));
    const yearOfEra = values.get("year")!;
    const year = values.has("era") ? this.yearFromEra(values.get("era")!, yearOfEra) : yearOfEra;
    const seconds = this.fromFields({
      year,
      month: values.get("month") ?? 1,
      day: values.get("day") ?? 1,
      hour: values.get("hour") ?? 0,
      minute: values.get("minute") ?? 0,
      second: values.get("second") ?? 0,
    });
    assertSafeResult(seconds, input);
    const weekday = values.get("weekday");
    if (weekday !== undefined && weekday !== this.weekdayOf(seconds)) {
      const names = this.rules.weekdays!.names;
      throw new NbError(
        "invalid_input",
        `"${input}": weekday ${names[weekday]} does not match the date, which falls on ${names[this.weekdayOf(seconds)]}`,
      );
    }
    return seconds;
  }

  /** Default format, settings and examples. */
  describe(): CalendarDescription {
    const r = this.rules;
    const sample = this.fromFields({ year: 2024, month: 1, day: 1, hour: 12, minute: 34, second: 56 });
    return {
      kind: this.kind,
      format: r.format,
      precision: this.formats.precision(),
      zero: this.format(0),
      examples: [this.format(0), this.format(-1), this.format(sample)],
      settings: {
        months: r.months,
        leap: r.leap ?? null,
        day: { hours: r.hoursPerDay, minutes: r.minutesPerHour, seconds: r.secondsPerMinute },
        eras: r.eras,
        beforeEra: r.beforeEra ?? null,
        weekdays: r.weekdays ?? null,
        range: { from: this.format(-Number.MAX_SAFE_INTEGER), to: this.format(Number.MAX_SAFE_INTEGER) },
      },
    };
  }

  /** The date of `seconds` with era and names resolved, as custom calendar scripts receive it. */
  partsOf(seconds: number): DateParts {
    const f = this.toFields(seconds);
    const r = this.rules;
    const era = r.eras.length ? this.eraOf(f.year) : undefined;
    const weekday = r.weekdays ? this.weekdayOf(seconds) : null;
    return {
      ...f,
      era: era ? (era.index < 0 ? r.beforeEra! : r.eras[era.index].name) : null,
      yearOfEra: era ? era.yearOfEra : f.year,
      monthName: r.months[f.month - 1].name,
      weekday,
      weekdayName: weekday === null ? null : r.weekdays!.names[weekday],
    };
  }

  /**
   * Seconds of a date given by parts: `year` is the year of `era` when an era is named, else the
   * internal year; `month` is a number or a month name; omitted parts count from their start.
   */
  secondsOf(parts: DateInput): number {
    const r = this.rules;
    let year = parts.year;
    if (parts.era !== undefined) {
      const index = parts.era === r.beforeEra ? -1 : r.eras.findIndex((e) => e.name === parts.era);
      if (index === -1 && parts.era !== r.beforeEra) {
        const known = [...r.eras.map((e) => e.name), ...(r.beforeEra ? [r.beforeEra] : [])];
        throw new NbError(
          "invalid_input",
          `unknown era "${parts.era}" (known: ${known.join(", ") || "none"})`,
        );
      }
      year = this.yearFromEra(index, parts.year);
    }
    let month = parts.month ?? 1;
    if (typeof month === "string") {
      const name = month;
      month = r.months.findIndex((m) => m.name === name) + 1;
      if (month === 0) throw new NbError("invalid_input", `unknown month "${name}"`);
    }
    const seconds = this.fromFields({
      year,
      month,
      day: parts.day ?? 1,
      hour: parts.hour ?? 0,
      minute: parts.minute ?? 0,
      second: parts.second ?? 0,
    });
    return assertSafeResult(seconds, JSON.stringify(parts));
  }

  /** Weekday index (0-based) of the day holding `seconds`. */
  private weekdayOf(seconds: number): number {
    const w = this.rules.weekdays!;
    return mod(floorDiv(seconds, this.secondsPerDay) + w.offset, w.names.length);
  }

  /** Leap years strictly below `n` minus those below 1 (negative for n < 1), counted in closed form. */
  private leapsUpTo(n: number): number {
    const leap = this.rules.leap;
    if (!leap) return 0;
    const r = n - leap.offset;
    let count = floorDiv(r, leap.every);
    if (leap.except) count -= floorDiv(r, leap.except);
    if (leap.unless) count += floorDiv(r, leap.unless);
    return count;
  }

  /** Days from the zero day to the first day of internal year `year`. */
  private daysBeforeYear(year: number): number {
    return (
      (year - 1) * this.baseYearDays + this.leapExtraDays * (this.leapsUpTo(year - 1) - this.leapsUpTo(0))
    );
  }

  /** The internal year holding day `day` (days since the zero day): an estimate plus bounded correction. */
  private yearOfDay(day: number): number {
    let year = Math.floor(day / this.averageYearDays) + 1;
    while (this.daysBeforeYear(year) > day) year--;
    while (this.daysBeforeYear(year + 1) <= day) year++;
    return year;
  }

  private eraOf(year: number): { index: number; yearOfEra: number } {
    const eras = this.rules.eras;
    for (let i = eras.length - 1; i >= 0; i--) {
      if (year >= eras[i].start) return { index: i, yearOfEra: year - eras[i].start + 1 };
    }
    return { index: -1, yearOfEra: eras[0].start - year };
  }

  private yearFromEra(index: number, yearOfEra: number): number {
    const eras = this.rules.eras;
    if (index < 0) {
      if (yearOfEra < 1)
        throw rangeError("year", yearOfEra, 1, Number.POSITIVE_INFINITY, `of ${this.rules.beforeEra}`);
      return eras[0].start - yearOfEra;
    }
    const era = eras[index];
    const next = eras[index + 1];
    const last = next ? next.start - era.start : Number.POSITIVE_INFINITY;
    if (yearOfEra < 1 || yearOfEra > last) throw rangeError("year", yearOfEra, 1, last, `of ${era.name}`);
    return era.start + yearOfEra - 1;
  }

  /** A year as people read it: "2001 AD" with eras, the signed internal year without. */
  private yearLabel(year: number): string {
    if (!this.rules.eras.length) return String(year);
    const era = this.eraOf(year);
    return `${era.yearOfEra} ${era.index < 0 ? this.rules.beforeEra : this.rules.eras[era.index].name}`;
  }

  /** Reject a default format that cannot read back its own output (e.g. unseparated unpadded numbers). */
  private checkRoundTrip(): void {
    const shown = UNITS.filter((u) => this.formats.default.fields.has(u));
    const samples = [0, -1, 86_399, 40_000_000, 1_000_000_000, -7_777_777_777, 98_765_432_101];
    this.formats.assertReadsBack(this, samples, (t) => {
      const f = this.toFields(t);
      return this.fromFields({
        year: f.year,
        month: shown.includes("month") ? f.month : 1,
        day: shown.includes("day") ? f.day : 1,
        hour: shown.includes("hour") ? f.hour : 0,
        minute: shown.includes("minute") ? f.minute : 0,
        second: shown.includes("second") ? f.second : 0,
      });
    });
  }
}
