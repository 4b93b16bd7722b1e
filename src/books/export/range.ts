import { z } from "zod";
import { NbError } from "../../core/errors.js";

/** `A..B`, `A..`, `..B` or `N`: chapter numbers in reading order, 1 being the first, both ends included. */
export const ChapterRangeSchema = z
  .string()
  .trim()
  .regex(
    /^(?:[1-9]\d{0,5}(?:\.\.(?:[1-9]\d{0,5})?)?|\.\.[1-9]\d{0,5})$/,
    "expected A..B, A.., ..B or N (chapter numbers from 1)",
  )
  .refine((s) => {
    const [a, b] = s.split("..");
    return !a || !b || Number(a) <= Number(b);
  }, "the range's first chapter comes after its last");

export interface ChapterRange {
  from: number;
  to: number | null;
  select<T>(chapters: T[]): T[];
}

/** A checked range string as the chapters it keeps; a range past the book's end is an error. */
export function parseChapterRange(text: string): ChapterRange {
  const [a, b] = text.includes("..") ? text.split("..") : [text, text];
  const from = a ? Number(a) : 1;
  const to = b ? Number(b) : null;
  return {
    from,
    to,
    select<T>(chapters: T[]): T[] {
      if (from > chapters.length || (to !== null && to > chapters.length)) {
        throw new NbError(
          "invalid_input",
          `Chapters ${text}: the book has ${chapters.length} chapter${chapters.length === 1 ? "" : "s"}`,
          { fields: [{ pointer: "/chapters", message: `at most ${chapters.length}` }] },
        );
      }
      return chapters.slice(from - 1, to ?? chapters.length);
    },
  };
}
