import { NbError } from "../../core/errors.js";
import { type FieldSpec, Template } from "./template.js";

const MAX_CACHED = 64;

/** A calendar string as parsed: the trimmed text and the value of each field it shows. */
export interface ParsedText {
  input: string;
  values: Map<string, number>;
}

/**
 * A calendar's default format plus a small cache of ad-hoc ones. Any format may display any
 * fields; a format used for parsing must show the units from the largest down without gaps, so the
 * text pins down one instant at the precision it shows.
 */
export class Formats {
  readonly default: Template;
  private readonly specs: Readonly<Record<string, FieldSpec>>;
  /** Unit field names from the largest to the smallest. */
  private readonly units: readonly string[];
  private readonly cache = new Map<string, Template>();

  constructor(specs: Readonly<Record<string, FieldSpec>>, units: readonly string[], defaultFormat: string) {
    this.specs = specs;
    this.units = units;
    this.default = new Template(defaultFormat, specs);
    const problem = this.parseProblem(this.default);
    if (problem) throw new NbError("config_error", problem);
  }

  /** The template to render with: the default, or `fmt` compiled (`invalid_input` if malformed). */
  forFormat(fmt?: string): Template {
    if (fmt === undefined) return this.default;
    let t = this.cache.get(fmt);
    if (!t) {
      try {
        t = new Template(fmt, this.specs);
      } catch (e) {
        throw e instanceof NbError ? new NbError("invalid_input", e.message) : e;
      }
      if (this.cache.size >= MAX_CACHED) this.cache.clear();
      this.cache.set(fmt, t);
    }
    return t;
  }

  /** The template to parse with; `invalid_input` when `fmt` leaves a gap in the units it shows. */
  forParse(fmt?: string): Template {
    const t = this.forFormat(fmt);
    const problem = t === this.default ? undefined : this.parseProblem(t);
    if (problem) throw new NbError("invalid_input", problem);
    return t;
  }

  /**
   * The trimmed `text` and the fields it shows in `fmt` (or the default); `invalid_input` when it
   * does not match, quoting `example()` — the zero instant in that format — so the caller sees the shape.
   */
  match(text: string, fmt: string | undefined, example: () => string): ParsedText {
    const template = this.forParse(fmt);
    const input = text.trim();
    const values = template.match(input);
    if (!values) {
      throw new NbError(
        "invalid_input",
        `"${input}" does not match the calendar format "${template.source}" (for example "${example()}")`,
      );
    }
    return { input, values };
  }

  /**
   * `config_error` unless each sample instant, shown in the default format by `calendar`, parses back
   * to `expected(t)` — the instant cut to what the format shows (unseparated unpadded numbers fail).
   */
  assertReadsBack(
    calendar: { format(seconds: number): string; parse(text: string): number },
    samples: readonly number[],
    expected: (t: number) => number,
  ): void {
    for (const t of samples) {
      const want = expected(t);
      const text = calendar.format(t);
      let back: number | undefined;
      try {
        back = calendar.parse(text);
      } catch {
        back = undefined;
      }
      if (back !== want) {
        throw new NbError(
          "config_error",
          `format "${this.default.source}" cannot read back its own output "${text}"; separate adjacent numbers or zero-pad them`,
        );
      }
    }
  }

  /** The smallest unit a template shows. */
  precision(t: Template = this.default): string {
    return this.units.filter((u) => t.fields.has(u)).at(-1)!;
  }

  private parseProblem(t: Template): string | undefined {
    if (!t.fields.has(this.units[0])) return `format "${t.source}" must show {${this.units[0]}}`;
    const shown = this.units.filter((u) => t.fields.has(u));
    const gap = shown.findIndex((u, i) => u !== this.units[i]);
    if (gap < 0) return undefined;
    return `format "${t.source}" shows {${shown[gap]}} but not {${this.units[gap]}}: a format that is parsed shows the units from {${this.units[0]}} down without gaps`;
  }
}
