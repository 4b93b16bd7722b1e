import { readFileSync, statSync } from "node:fs";
import { NbError } from "../../core/errors.js";
import { GregorianCalendar } from "./gregorian.js";
import { type CalendarLanguage, parseCalendarYaml } from "./load.js";
import type { Calendar } from "./types.js";

/**
 * A project's calendar.yaml, re-read only when the file changes (inode, size or mtime), so edits
 * are picked up by the next call without re-parsing on every one. A missing file means the
 * default Gregorian calendar in the project's language.
 */
export class CalendarFile {
  private readonly path: string;
  private readonly language: () => CalendarLanguage;
  private stamp?: string;
  private calendar?: Calendar;

  constructor(path: string, language: () => CalendarLanguage) {
    this.path = path;
    this.language = language;
  }

  /** The current calendar; throws `config_error` while the file is malformed. */
  get(): Calendar {
    const stamp = this.currentStamp();
    if (this.calendar && stamp === this.stamp) return this.calendar;
    const calendar =
      stamp === "missing"
        ? new GregorianCalendar({ type: "gregorian", language: this.language() })
        : parseCalendarYaml(this.read(), this.language(), "world-engine/calendar.yaml");
    this.calendar = calendar;
    this.stamp = stamp;
    return calendar;
  }

  private currentStamp(): string {
    try {
      const s = statSync(this.path, { bigint: true });
      return `${s.ino}:${s.size}:${s.mtimeNs}`;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return "missing";
      throw new NbError("io_error", "cannot read world-engine/calendar.yaml");
    }
  }

  private read(): string {
    try {
      return readFileSync(this.path, "utf8");
    } catch {
      throw new NbError("io_error", "cannot read world-engine/calendar.yaml");
    }
  }
}
