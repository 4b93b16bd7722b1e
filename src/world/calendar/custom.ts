import { z } from "zod";
import { firstDuplicate, parseSettings } from "./settings.js";
import { SolarCalendar, type SolarRules } from "./solar.js";

const label = z.string().trim().min(1);
const count = z.number().int().min(1);

/** `calendar.yaml` for `type: custom`: an invented calendar of named months, a leap rule, eras and weekdays. */
export const CustomConfigSchema = z
  .object({
    type: z.literal("custom"),
    months: z
      .array(
        z
          .object({
            name: label,
            days: z.number().int().min(0),
            /** Days the month gains in a leap year; a month of 0 days with leap days exists only in leap years. */
            leapDays: z.number().int().min(0).default(0),
          })
          .strict(),
      )
      .min(1)
      .max(1000),
    /** Leap years: year − offset divisible by `every`, except by `except`, unless by `unless`. */
    leap: z
      .object({
        every: count,
        except: count.optional(),
        unless: count.optional(),
        offset: z.number().int().default(0),
      })
      .strict()
      .optional(),
    day: z
      .object({ hours: count.default(24), minutes: count.default(60), seconds: count.default(60) })
      .strict()
      .default({ hours: 24, minutes: 60, seconds: 60 }),
    /** Eras in order; each starts at an internal year (year 1 holds the zero point) and counts from 1. */
    eras: z
      .array(z.object({ name: label, start: z.number().int() }).strict())
      .min(1)
      .optional(),
    /** Name of the era before the first one (required with eras). */
    beforeEra: label.optional(),
    /** Weekday names; `offset` is the weekday of the day that holds the zero point. */
    weekdays: z
      .object({ names: z.array(label).min(1), offset: z.number().int().default(0) })
      .strict()
      .optional(),
    /** The default format; optional when `script` formats and parses. */
    format: z.string().min(1).optional(),
    /**
     * JavaScript defining `format(seconds, date)` → string and `parse(text)` → seconds or a date
     * object; it runs in the QuickJS sandbox, never in the host.
     */
    script: z
      .string()
      .min(1)
      .max(64 * 1024)
      .optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    const problem = (path: PropertyKey[], message: string) => ctx.addIssue({ code: "custom", path, message });
    if (c.format === undefined && c.script === undefined)
      problem(["format"], "required (unless a script formats and parses)");
    c.months.forEach((m, i) => {
      if (m.days + m.leapDays === 0) problem(["months", i, "days"], `month ${m.name} has no days`);
    });
    if (c.months.every((m) => m.days === 0)) problem(["months"], "a common year must have at least one day");
    const dupMonth = firstDuplicate(c.months.map((m) => m.name));
    if (dupMonth) problem(["months"], `month name "${dupMonth}" is used twice`);
    const hasLeapDays = c.months.some((m) => m.leapDays > 0);
    if (c.leap && !hasLeapDays) problem(["leap"], "a leap rule needs at least one month with leapDays");
    if (!c.leap && hasLeapDays) problem(["leap"], "months have leapDays but there is no leap rule");
    if (c.leap) {
      const { every, except, unless } = c.leap;
      if (except !== undefined && except % every !== 0)
        problem(["leap", "except"], `must be a multiple of every (${every})`);
      if (unless !== undefined && except === undefined) problem(["leap", "unless"], "needs except");
      if (unless !== undefined && except !== undefined && unless % except !== 0) {
        problem(["leap", "unless"], `must be a multiple of except (${except})`);
      }
    }
    if (c.eras) {
      if (c.beforeEra === undefined) problem(["beforeEra"], "required when eras are given");
      c.eras.forEach((e, i) => {
        if (i > 0 && e.start <= c.eras![i - 1].start)
          problem(["eras", i, "start"], "eras must start in increasing years");
      });
      const dupEra = firstDuplicate([...c.eras.map((e) => e.name), ...(c.beforeEra ? [c.beforeEra] : [])]);
      if (dupEra) problem(["eras"], `era name "${dupEra}" is used twice`);
    } else if (c.beforeEra !== undefined) {
      problem(["beforeEra"], "only meaningful with eras");
    }
    const dupDay = c.weekdays && firstDuplicate(c.weekdays.names);
    if (dupDay) problem(["weekdays", "names"], `weekday name "${dupDay}" is used twice`);
  });

export type CustomConfig = z.input<typeof CustomConfigSchema>;

/**
 * An invented year/month/day calendar. Instant 0 is the first second of internal year 1, month 1,
 * day 1; eras relabel internal years, and a format without {era} shows the signed internal year.
 */
export class CustomCalendar extends SolarCalendar {
  /** JavaScript format/parse functions, when the settings give them (see ScriptedCalendar). */
  readonly script?: string;

  constructor(config: CustomConfig) {
    const c = parseSettings(CustomConfigSchema, config);
    const rules: SolarRules = {
      months: c.months,
      leap: c.leap,
      hoursPerDay: c.day.hours,
      minutesPerHour: c.day.minutes,
      secondsPerMinute: c.day.seconds,
      eras: c.eras ?? [],
      beforeEra: c.beforeEra,
      weekdays: c.weekdays,
      format:
        c.format ?? `${c.eras ? "{era} " : ""}{year}-{month:02}-{day:02} {hour:02}:{minute:02}:{second:02}`,
    };
    super("custom", rules);
    if (c.script !== undefined) this.script = c.script;
  }
}
