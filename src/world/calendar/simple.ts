import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { assertInstant, assertSafeResult, floorDiv, mod, rangeError } from "./arith.js";
import { Formats } from "./formats.js";
import { atPointer, firstDuplicate, parseSettings, settingsError } from "./settings.js";
import type { FieldSpec } from "./template.js";
import type { Calendar, CalendarDescription } from "./types.js";

const name = z
  .string()
  .trim()
  .min(1)
  .regex(/^[^{}:]+$/u, "must not contain braces or colons");

/** `calendar.yaml` for `type: simple`: a chain of units above a base unit of one second. */
export const SimpleConfigSchema = z
  .object({
    type: z.literal("simple"),
    /** Name of the base unit, which is always one second. */
    base: name.default("second"),
    /** Smallest first; `length` counts the previous unit (the first counts seconds). */
    units: z
      .array(
        z
          .object({
            name,
            length: z.number().int().min(1),
            /** The number shown for the first of these units inside its parent (often 0 or 1). */
            start: z.number().int().min(0).default(0),
            /** Names for this unit's values inside its parent (as many as the parent's length). */
            names: z.array(name).min(1).optional(),
          })
          .strict(),
      )
      .min(1),
    /** Named cycles beside the chain, such as weekdays: they never change the chain's arithmetic. */
    cycles: z
      .array(
        z
          .object({
            name,
            unit: name,
            names: z.array(name).min(1),
            /** Cycle position of the unit that contains the zero point. */
            offset: z.number().int().default(0),
          })
          .strict(),
      )
      .default([]),
    /** Era words: `after` for times from zero on, `before` for earlier ones. */
    eras: z
      .object({ after: name, before: name })
      .strict()
      .refine((e) => e.after !== e.before, { message: "the two era words must differ" })
      .optional(),
    format: z.string().min(1),
  })
  .strict();

export type SimpleConfig = z.input<typeof SimpleConfigSchema>;

interface Unit {
  name: string;
  /** Seconds in one of this unit. */
  size: number;
  start: number;
  /** How many of this unit make the next one; Infinity for the top unit. */
  count: number;
  names?: string[];
}

/**
 * A calendar made of a fixed chain of units (second → minute → hour → day → month → year, or any
 * invented chain). Second 0 is the first of every unit. The top unit is unbounded: with eras, times
 * before zero count the top unit backwards from its start in the "before" era; without, the top unit
 * is shown signed. Every other unit is range-checked on parse.
 */
export class SimpleCalendar implements Calendar {
  readonly kind = "simple" as const;
  private readonly config: z.output<typeof SimpleConfigSchema>;
  /** Base unit first, top unit last. */
  private readonly units: Unit[];
  private readonly specs: Record<string, FieldSpec> = {};
  private readonly formats: Formats;

  constructor(config: SimpleConfig) {
    const c = parseSettings(SimpleConfigSchema, config);
    this.config = c;
    this.units = [{ name: c.base, size: 1, start: 0, count: c.units[0].length }];
    c.units.forEach((u, i) => {
      const size = this.units[i].size * u.length;
      if (!Number.isSafeInteger(size)) {
        throw settingsError(
          `/units/${i}/length`,
          `unit ${u.name} is too long: ${size} seconds exceeds the safe-integer range`,
        );
      }
      this.units.push({
        name: u.name,
        size,
        start: u.start,
        count: c.units[i + 1]?.length ?? Number.POSITIVE_INFINITY,
      });
    });
    this.units.forEach((u, i) => {
      const names = c.units[i - 1]?.names;
      if (names && names.length !== u.count) {
        throw settingsError(
          `/units/${i - 1}/names`,
          Number.isFinite(u.count)
            ? `unit ${u.name} has ${names.length} names but ${u.count} ${u.name}s make one ${this.units[i + 1].name}`
            : `unit ${u.name} is the top unit and cannot have names (it has no fixed count)`,
        );
      }
      if (names) u.names = names;
    });
    const dup = firstDuplicate([...this.units.map((u) => u.name), ...c.cycles.map((x) => x.name), "era"]);
    if (dup)
      throw settingsError(
        "/units",
        `the name "${dup}" is used twice (units, cycles and era need distinct names)`,
      );
    for (const u of this.units) this.specs[u.name] = { numeric: true, names: u.names, nameBase: u.start };
    for (const [i, cy] of c.cycles.entries()) {
      if (!this.units.some((u) => u.name === cy.unit)) {
        throw settingsError(`/cycles/${i}/unit`, `cycle ${cy.name} counts unknown unit "${cy.unit}"`);
      }
      this.specs[cy.name] = { numeric: false, names: cy.names };
    }
    if (c.eras) this.specs.era = { numeric: false, names: [c.eras.before, c.eras.after], nameBase: -1 };
    try {
      this.formats = new Formats(
        this.specs,
        [...this.units].reverse().map((u) => u.name),
        c.format,
      );
      this.checkRoundTrip();
    } catch (e) {
      throw atPointer(e, "/format");
    }
  }

  /** Seconds → calendar string, in the default format or in `fmt`. */
  format(seconds: number, fmt?: string): string {
    assertInstant(seconds);
    const template = this.formats.forFormat(fmt);
    const values: Record<string, number> = {};
    const top = this.units.length - 1;
    let rest = seconds;
    for (let i = top; i >= 0; i--) {
      const index = i === top ? floorDiv(rest, this.units[i].size) : Math.floor(rest / this.units[i].size);
      rest -= index * this.units[i].size;
      values[this.units[i].name] = index + this.units[i].start;
      if (i === top && template.fields.has("era")) {
        values.era = index < 0 ? -1 : 0;
        values[this.units[i].name] = (index < 0 ? -index - 1 : index) + this.units[i].start;
      }
    }
    for (const cy of this.config.cycles) {
      const unit = this.units.find((u) => u.name === cy.unit)!;
      values[cy.name] = mod(floorDiv(seconds, unit.size) + cy.offset, cy.names.length);
    }
    return template.render(values);
  }

  /** Calendar string (default format, or `fmt`) → seconds; every unit is range-checked. */
  parse(text: string, fmt?: string): number {
    const { input, values } = this.formats.match(text, fmt, () => this.format(0, fmt));
    const top = this.units.length - 1;
    let seconds = 0;
    for (let i = top; i >= 0; i--) {
      const u = this.units[i];
      const shown = values.get(u.name);
      if (shown === undefined) continue;
      let index = shown - u.start;
      if (i === top) {
        if (values.has("era")) {
          const era = values.get("era") === -1 ? this.config.eras!.before : this.config.eras!.after;
          if (index < 0) throw rangeError(u.name, shown, u.start, Number.POSITIVE_INFINITY, `of ${era}`);
          if (values.get("era") === -1) index = -index - 1;
        }
      } else if (index < 0 || index >= u.count) {
        throw rangeError(u.name, shown, u.start, u.start + u.count - 1);
      }
      seconds += index * u.size;
    }
    assertSafeResult(seconds, input);
    for (const cy of this.config.cycles) {
      const given = values.get(cy.name);
      if (given === undefined) continue;
      const unit = this.units.find((u) => u.name === cy.unit)!;
      const actual = mod(floorDiv(seconds, unit.size) + cy.offset, cy.names.length);
      if (given !== actual) {
        throw new NbError(
          "invalid_input",
          `"${input}": ${cy.name} ${cy.names[given]} does not match the date, which is ${cy.names[actual]}`,
        );
      }
    }
    return seconds;
  }

  /** Default format, units, cycles and examples. */
  describe(): CalendarDescription {
    return {
      kind: this.kind,
      format: this.config.format,
      precision: this.formats.precision(),
      zero: this.format(0),
      examples: [this.format(0), this.format(-1), this.format(this.units.at(-1)!.size * 3 + 3_723)],
      settings: {
        base: this.config.base,
        units: this.config.units,
        cycles: this.config.cycles,
        eras: this.config.eras ?? null,
      },
    };
  }

  /** Reject a default format that cannot read back its own output. */
  private checkRoundTrip(): void {
    const precision = this.units.find((u) => u.name === this.formats.precision())!.size;
    const topSize = this.units.at(-1)!.size;
    const samples = [0, -1, 3_723, topSize * 7 + 12_345, -topSize * 3 - 1, 9_876_543_210];
    this.formats.assertReadsBack(this, samples.filter(Number.isSafeInteger), (t) => t - mod(t, precision));
  }
}
