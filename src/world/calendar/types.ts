/** The three calendar kinds a project can configure. */
export type CalendarKind = "gregorian" | "simple" | "custom";

/** What a calendar tells an agent or a UI about itself. */
export interface CalendarDescription {
  kind: CalendarKind;
  /** The default format string. */
  format: string;
  /** The smallest unit the default format shows; parse(format(t)) equals t rounded down to it. */
  precision: string;
  /** format(0): the zero point. */
  zero: string;
  /** A few formatted instants, for the model to imitate. */
  examples: string[];
  /** Kind-specific settings (units, months, eras, cycles), ready to show as JSON. */
  settings: Record<string, unknown>;
}

/**
 * Converts between calendar strings and world time: an integer count of seconds (a safe integer,
 * negative before the zero point).
 */
export interface Calendar {
  readonly kind: CalendarKind;
  /** Calendar string → seconds; throws `invalid_input` naming what is wrong. */
  parse(text: string): number;
  /** Seconds → calendar string, in the default format or in `fmt` (same tokens). */
  format(seconds: number, fmt?: string): string;
  /** Settings, default format and examples. */
  describe(): CalendarDescription;
}
