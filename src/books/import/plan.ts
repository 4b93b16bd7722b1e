import { z } from "zod";
import { ImportWarningSchema } from "./warnings.js";

export const PlannedChapterSchema = z.object({
  /** Reading position in the book, from 1. */
  index: z.number().int().positive(),
  title: z.string(),
  /** The chapter's folder under manuscript/, e.g. `03-the-bell`. */
  folder: z.string(),
  /** The plot chapter's name (a slug). */
  name: z.string(),
  /** The act (from a part) it belongs to, by name, or null. */
  act: z.string().nullable(),
  words: z.number().int().nonnegative(),
});

export const ImportPlanSchema = z.object({
  format: z.enum(["docx", "epub", "markdown", "text", "folder"]),
  /** The file or folder name imported (no path). */
  source: z.string(),
  /** The text decoder of a text source (`utf-8`, `gb18030`, `big5-hkscs`, `mixed`), else null. */
  encoding: z.string().nullable(),
  /** The project created, or appended to with `into`. */
  project: z.string(),
  into: z.boolean(),
  title: z.string(),
  author: z.string().nullable(),
  language: z.enum(["en", "zh"]),
  /** How chapters were found. */
  splitBy: z.enum(["headings", "patterns", "split", "contents", "files", "none"]),
  /** The file text before the first chapter went to (manuscript/…), or null when there was none. */
  frontMatter: z.object({ file: z.string(), words: z.number().int().nonnegative() }).nullable(),
  acts: z.array(z.object({ name: z.string(), title: z.string() })),
  chapters: z.array(PlannedChapterSchema),
  words: z.number().int().nonnegative(),
  warnings: z.array(ImportWarningSchema),
});
export type ImportPlan = z.infer<typeof ImportPlanSchema>;
export type PlannedChapter = z.infer<typeof PlannedChapterSchema>;

export const ImportResultSchema = z.object({
  plan: ImportPlanSchema,
  /** False for a dry run: nothing was written. */
  written: z.boolean(),
});
export type ImportResult = z.infer<typeof ImportResultSchema>;
