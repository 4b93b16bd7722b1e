import { statSync } from "node:fs";
import { NbError } from "../../core/errors.js";
import { readTextSafeSync } from "../../workspace/safe-read.js";
import { GregorianCalendar } from "./gregorian.js";
import { type CalendarLanguage, parseCalendarYaml } from "./load.js";
import type { Calendar } from "./types.js";

/** The largest calendar.yaml read (a calendar with scripts is a few KiB). */
const MAX_CALENDAR_BYTES = 1024 * 1024;

const LABEL = "world-engine/calendar.yaml";

/**
 * A project's calendar.yaml, re-read only when the file changes (inode, size or mtime), so edits
 * are picked up by the next call without re-parsing on every one. A missing file means the
 * default Gregorian calendar in the project's language. It is read through the safe read, so a
 * FIFO, a device or a link out of the project (`root`, a real path) is an error, not a hang.
 */
export class CalendarFile {
  private readonly path: string;
  private readonly root: string;
  private readonly language: () => CalendarLanguage;
  private stamp?: string;
  private calendar?: Calendar;

  constructor(path: string, root: string, language: () => CalendarLanguage) {
    this.path = path;
    this.root = root;
    this.language = language;
  }

  /** The current calendar; throws `config_error` while the file is malformed. */
  get(): Calendar {
    const stamp = this.currentStamp();
    if (this.calendar && stamp === this.stamp) return this.calendar;
    const text = stamp === "missing" ? null : this.read();
    const calendar =
      text === null
        ? new GregorianCalendar({ type: "gregorian", language: this.language() })
        : parseCalendarYaml(text, this.language(), LABEL);
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
      throw new NbError("io_error", `cannot read ${LABEL}`);
    }
  }

  /** The file's text; null when it went missing since the stamp was taken. */
  private read(): string | null {
    return readTextSafeSync(this.path, { label: LABEL, root: this.root, maxBytes: MAX_CALENDAR_BYTES });
  }
}
