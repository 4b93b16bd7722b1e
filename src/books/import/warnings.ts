import { z } from "zod";

/** Stable codes of what an import tells the user without refusing the book. */
export const IMPORT_WARNING_CODES = [
  "no_chapter_headings",
  "duplicate_chapter_title",
  "mixed_encodings",
  "empty_chapter",
  "part_text_kept",
  "front_matter_renamed",
  "language_unsupported",
  "title_truncated",
] as const;

export const ImportWarningSchema = z.object({
  code: z.enum(IMPORT_WARNING_CODES),
  message: z.string(),
});
export type ImportWarning = z.infer<typeof ImportWarningSchema>;
