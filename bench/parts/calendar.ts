import {
  CustomCalendar,
  GregorianCalendar,
  ScriptedCalendar,
  SimpleCalendar,
} from "../../src/world/calendar/index.js";
import { type BenchSuite, medianMs } from "../lib.js";

const DAY = 86_400;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** The original's approach: walk year by year from AD 1 (positive times only), O(year). */
function naiveFormat(t: number): string {
  let days = Math.floor(t / DAY);
  const rest = t - days * DAY;
  let year = 1;
  for (;;) {
    const len = isLeap(year) ? 366 : 365;
    if (days < len) break;
    days -= len;
    year++;
  }
  let month = 0;
  for (;;) {
    const len = MONTH_DAYS[month] + (month === 1 && isLeap(year) ? 1 : 0);
    if (days < len) break;
    days -= len;
    month++;
  }
  const p = (n: number) => String(n).padStart(2, "0");
  const time = `${p(Math.floor(rest / 3600))}:${p(Math.floor(rest / 60) % 60)}:${p(rest % 60)}`;
  return `${String(year).padStart(4, "0")}-${p(month + 1)}-${p(days + 1)} ${time} AD`;
}

/** The year-by-year inverse of naiveFormat. */
function naiveParse(text: string): number {
  const m = /^(\d+)-(\d+)-(\d+) (\d+):(\d+):(\d+) AD$/.exec(text)!;
  const [year, month, day, h, mi, s] = m.slice(1).map(Number);
  let days = 0;
  for (let y = 1; y < year; y++) days += isLeap(y) ? 366 : 365;
  for (let i = 0; i < month - 1; i++) days += MONTH_DAYS[i] + (i === 1 && isLeap(year) ? 1 : 0);
  return (days + day - 1) * DAY + h * 3600 + mi * 60 + s;
}

/** Median microseconds per call of `fn`, timed in batches so the clock's own cost does not dominate. */
async function microsPerCall(fn: () => void, batch = 1000): Promise<number> {
  const ms = await medianMs(
    () => {
      for (let i = 0; i < batch; i++) fn();
    },
    { iterations: 30, warmup: 5 },
  );
  return (ms * 1000) / batch;
}

/** Part of the `world` suite (`npm run bench -- world`). */
export const calendarFigures: BenchSuite = {
  name: "calendar",
  description: "calendar string ⇄ seconds: closed-form conversions against a year-by-year loop",
  async run(report) {
    const g = new GregorianCalendar();
    // Year 1,000,000,000 is about 3.2e16 s from the zero point, beyond the safe-integer range every
    // world time lives in (±2^53 s ≈ ±285 million years), so the far-year figure is taken at year 285,000,000.
    const far = g.parse("285000000-07-14 13:45:30 AD");
    if (naiveParse(naiveFormat(far)) !== far || naiveFormat(far) !== g.format(far)) {
      throw new Error("naive baseline disagrees with the calendar");
    }
    const ours = await microsPerCall(() => g.parse(g.format(far)));
    const naiveMs = await medianMs(() => naiveParse(naiveFormat(far)), { iterations: 3, warmup: 1 });
    report({
      name: "gregorian_format_parse_year_285M",
      unit: "us",
      value: ours,
      baseline: naiveMs * 1000,
      ratio: (naiveMs * 1000) / ours,
      target: "< 50 us (issue: year 1e9, which is beyond ±2^53 s; 285M is the largest round year in range)",
    });

    const recent = g.parse("2024-07-14 13:45:30 AD");
    const oursRecent = await microsPerCall(() => g.parse(g.format(recent)));
    const naiveRecent = await microsPerCall(() => naiveParse(naiveFormat(recent)), 20);
    report({
      name: "gregorian_format_parse_year_2024",
      unit: "us",
      value: oursRecent,
      baseline: naiveRecent,
      ratio: naiveRecent / oursRecent,
    });

    const simple = new SimpleCalendar({
      type: "simple",
      units: [
        { name: "minute", length: 60 },
        { name: "hour", length: 60 },
        { name: "day", length: 24, start: 1 },
        { name: "month", length: 30, start: 1 },
        { name: "year", length: 12, start: 1 },
      ],
      cycles: [{ name: "weekday", unit: "day", names: ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] }],
      eras: { after: "NE", before: "OE" },
      format: "{era} {year}-{month:02}-{day:02} {hour:02}:{minute:02}:{second:02} {weekday}",
    });
    const st = 8_000_000_000_000_123;
    report({
      name: "simple_format_parse",
      unit: "us",
      value: await microsPerCall(() => simple.parse(simple.format(st))),
    });

    const custom = new CustomCalendar({
      type: "custom",
      months: [
        { name: "Thaw", days: 30 },
        { name: "Bloom", days: 31, leapDays: 1 },
        { name: "Fall", days: 29 },
      ],
      leap: { every: 3, except: 30, unless: 90 },
      eras: [
        { name: "Dawn", start: 1 },
        { name: "Crown", start: 1001 },
      ],
      beforeEra: "Dark",
      weekdays: { names: ["Sun", "Moon", "Star", "Sea", "Stone"] },
      format: "{weekday}, {day} {month:name} {year} {era}, {hour:02}:{minute:02}:{second:02}",
    });
    report({
      name: "custom_format_parse_far_year",
      unit: "us",
      value: await microsPerCall(() => custom.parse(custom.format(st))),
    });

    // A custom calendar whose text form is JavaScript: from the main thread each call is posted to the
    // blocking sandbox worker (a fresh QuickJS context there), and the caller sleeps until it answers.
    const base = new CustomCalendar({
      type: "custom",
      months: [{ name: "Long", days: 400 }],
      script:
        "function format(s, d) { return 'Year ' + d.year + ' day ' + d.day }\nfunction parse(t) { const m = /^Year (-?\\d+) day (\\d+)$/.exec(t); return { year: Number(m[1]), day: Number(m[2]) } }",
    });
    const scripted = await new ScriptedCalendar(base, base.script!).ready();
    const day = 86_400 * 123_456;
    if (scripted.parse(scripted.format(day)) !== day)
      throw new Error("scripted calendar does not round-trip");
    report({
      name: "custom_script_format_parse",
      unit: "us",
      value: await microsPerCall(() => scripted.parse(scripted.format(day)), 20),
    });
  },
};
