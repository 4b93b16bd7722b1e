import { z } from "zod";
import { firstDuplicate, parseSettings } from "./settings.js";
import { SolarCalendar } from "./solar.js";

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Language-dependent defaults for a Gregorian calendar. */
export const GREGORIAN_DEFAULTS = {
  en: {
    format: "{year:04}-{month:02}-{day:02} {hour:02}:{minute:02}:{second:02} {era}",
    eras: { after: "AD", before: "BC" },
    monthNames: [
      "January",
      "February",
      "March",
      "April",
      "May",
      "June",
      "July",
      "August",
      "September",
      "October",
      "November",
      "December",
    ],
    weekdayNames: ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
  },
  zh: {
    format: "{era}{year}年{month:02}月{day:02}日 {hour:02}:{minute:02}:{second:02}",
    eras: { after: "公元", before: "公元前" },
    monthNames: [
      "一月",
      "二月",
      "三月",
      "四月",
      "五月",
      "六月",
      "七月",
      "八月",
      "九月",
      "十月",
      "十一月",
      "十二月",
    ],
    weekdayNames: ["星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日"],
  },
} as const;

/** `calendar.yaml` for `type: gregorian`; every setting is optional and defaults by `language`. */
export const GregorianConfigSchema = z
  .object({
    type: z.literal("gregorian"),
    language: z.enum(["en", "zh"]).default("en"),
    format: z.string().min(1).optional(),
    eras: z
      .object({ after: z.string().trim().min(1), before: z.string().trim().min(1) })
      .strict()
      .refine((e) => e.after !== e.before, { message: "the two era words must differ" })
      .optional(),
    monthNames: z
      .array(z.string().trim().min(1))
      .length(12)
      .refine((n) => !firstDuplicate(n), { message: "month names must differ" })
      .optional(),
    /** Monday first. */
    weekdayNames: z
      .array(z.string().trim().min(1))
      .length(7)
      .refine((n) => !firstDuplicate(n), { message: "weekday names must differ" })
      .optional(),
  })
  .strict();

export type GregorianConfig = z.input<typeof GregorianConfigSchema>;

/**
 * The proleptic Gregorian calendar in UTC. Zero point: 0001-01-01 00:00:00 AD is second 0, so
 * second 0 of the Unix epoch (1970-01-01) is 62,135,596,800. Years before AD 1 are shown with the
 * "before" era word (1 BC is the year before AD 1, and a leap year); a format without {era} shows the
 * astronomical year instead (0 = 1 BC, -1 = 2 BC), as ISO 8601 does.
 */
export class GregorianCalendar extends SolarCalendar {
  /** Seconds from the zero point to 1970-01-01 00:00:00 UTC. */
  static readonly UNIX_EPOCH = 62_135_596_800;

  constructor(config: GregorianConfig = { type: "gregorian" }) {
    const c = parseSettings(GregorianConfigSchema, config);
    const d = GREGORIAN_DEFAULTS[c.language];
    const monthNames = c.monthNames ?? d.monthNames;
    const eras = c.eras ?? d.eras;
    super("gregorian", {
      months: MONTH_DAYS.map((days, i) => ({ name: monthNames[i], days, leapDays: i === 1 ? 1 : 0 })),
      leap: { every: 4, except: 100, unless: 400, offset: 0 },
      hoursPerDay: 24,
      minutesPerHour: 60,
      secondsPerMinute: 60,
      eras: [{ name: eras.after, start: 1 }],
      beforeEra: eras.before,
      // 0001-01-01 (proleptic) was a Monday.
      weekdays: { names: [...(c.weekdayNames ?? d.weekdayNames)], offset: 0 },
      format: c.format ?? d.format,
    });
  }
}
