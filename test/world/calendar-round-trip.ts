import fc from "fast-check";
import { expect } from "vitest";

/** A calendar that formats and parses in its default format or in an ad-hoc one. */
interface FormatsAndParses {
  format(seconds: number, fmt?: string): string;
  parse(text: string, fmt?: string): number;
}

/** Asserts that `numRuns` random instants of the safe-integer range parse back from `fmt` (or the default format). */
export function expectRoundTrips(calendar: FormatsAndParses, numRuns?: number, fmt?: string): void {
  fc.assert(
    fc.property(fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), (t) => {
      expect(calendar.parse(calendar.format(t, fmt), fmt)).toBe(t);
    }),
    { numRuns },
  );
}
