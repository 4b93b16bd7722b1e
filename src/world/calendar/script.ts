import { NbError } from "../../core/errors.js";
import { parseOrThrow } from "../../core/validate.js";
import { prepareContained, runScriptContained, type SandboxLimits } from "../sandbox/index.js";
import { assertInstant } from "./arith.js";
import type { CustomCalendar } from "./custom.js";
import { DateInputSchema } from "./solar.js";
import type { Calendar, CalendarDescription } from "./types.js";

/** Calendar scripts are small pure functions: tight limits keep a bad one from stalling a write. */
const LIMITS: Partial<SandboxLimits> = {
  timeoutMs: 1_000,
  memoryBytes: 16 * 1024 * 1024,
  maxResultChars: 4_096,
};

const kindOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "an array" : typeof v);

/**
 * A custom calendar whose text form comes from user JavaScript run in the QuickJS sandbox:
 * `format(seconds, date)` receives the declarative calendar's breakdown (`year`, `era`,
 * `yearOfEra`, `month`, `monthName`, `day`, `hour`, `minute`, `second`, `weekday`, `weekdayName`)
 * and returns the text; `parse(text)` returns seconds or a date (`{era?, year, month?, day?, …}`)
 * that the declarative calendar converts and range-checks. Ad-hoc `fmt` formats bypass the script.
 * Calls are synchronous; on the main thread they run in a worker that is killed at the time limit
 * (see runScriptContained). A script that ran out of time once is not run again: every later call
 * fails at once with the same error, until calendar.yaml changes (which makes a new calendar).
 * `ready()` (done by `openCalendar`) starts the sandbox ahead of the first call.
 */
export class ScriptedCalendar implements Calendar {
  readonly kind = "custom" as const;
  readonly base: CustomCalendar;
  private readonly script: string;
  /** The timeout this script ran into, repeated instead of stalling every later call. */
  private stalled: NbError | null = null;

  constructor(base: CustomCalendar, script: string) {
    this.base = base;
    this.script = script;
  }

  /** Start the sandbox this calendar runs in, so the first call does not wait for it. */
  async ready(): Promise<this> {
    await prepareContained();
    return this;
  }

  /** Seconds → text through the script's `format`, or through the template `fmt` when given. */
  format(seconds: number, fmt?: string): string {
    if (fmt !== undefined) return this.base.format(seconds, fmt);
    assertInstant(seconds);
    const value = this.run("format", "format(__calendar.seconds, __calendar.date)", {
      seconds,
      date: this.base.partsOf(seconds),
    });
    if (typeof value !== "string") {
      throw new NbError(
        "invalid_input",
        `calendar script: format(${seconds}) returned ${kindOf(value)}, not a string`,
      );
    }
    return value;
  }

  /** Text → seconds through the script's `parse`, or through the template `fmt` when given. */
  parse(text: string, fmt?: string): number {
    if (fmt !== undefined) return this.base.parse(text, fmt);
    const input = text.trim();
    const value = this.run("parse", "parse(__calendar.text)", { text: input });
    if (typeof value === "number") {
      if (!Number.isSafeInteger(value)) {
        throw new NbError(
          "invalid_input",
          `calendar script: parse("${input}") returned ${value}, not a safe integer`,
        );
      }
      return value === 0 ? 0 : value;
    }
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      return this.base.secondsOf(parseOrThrow(DateInputSchema, value, `date returned by parse("${input}")`));
    }
    throw new NbError(
      "invalid_input",
      `calendar script: parse("${input}") returned ${kindOf(value)}, not seconds or a date object`,
    );
  }

  /** The declarative settings, with the script's own examples. */
  describe(): CalendarDescription {
    const d = this.base.describe();
    const sample = this.base.secondsOf({ year: 2024, hour: 12, minute: 34, second: 56 });
    return {
      ...d,
      format: "script",
      precision: "script",
      zero: this.format(0),
      examples: [this.format(0), this.format(-1), this.format(sample)],
      settings: { ...d.settings, script: true },
    };
  }

  private run(fn: "format" | "parse", call: string, input: Record<string, unknown>): unknown {
    if (this.stalled) throw this.stalled;
    const code = `${this.script}\n;if (typeof ${fn} !== "function") throw new Error("the calendar script defines no function ${fn}");\nreturn ${call};`;
    try {
      return runScriptContained({
        code,
        values: { __calendar: input },
        limits: LIMITS,
        filename: "calendar.js",
      }).value;
    } catch (e) {
      if (!(e instanceof NbError)) throw e;
      const error = new NbError(e.code, `calendar script ${fn}: ${e.message}`, { details: e.details });
      if (e.code === "timeout") {
        this.stalled = new NbError(
          "timeout",
          `${error.message} (it is not run again until world-engine/calendar.yaml changes)`,
          { details: e.details },
        );
        throw this.stalled;
      }
      throw error;
    }
  }
}
