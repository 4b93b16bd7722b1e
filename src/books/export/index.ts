// The compiler's entry point for every door (CLI `nbook export`, the API, the bench):
//   exportBook(project, options) → Promise<ExportResult>  (the file's bytes, name and media type)
// options: ExportOptionsSchema (format, chapters). The book is read by readBook (manuscript.ts).
import { z } from "zod";
import { parseOrThrow } from "../../core/validate.js";
import type { Project } from "../../workspace/project.js";
import { buildDocx } from "./docx.js";
import { buildEpub } from "./epub.js";
import { buildHtml } from "./html.js";
import { readBook } from "./manuscript.js";
import { buildMarkdown } from "./markdown.js";
import { buildPdf } from "./pdf.js";
import { ChapterRangeSchema, parseChapterRange } from "./range.js";

export { type Book, type BookPart, readBook } from "./manuscript.js";
export { ChapterRangeSchema, parseChapterRange } from "./range.js";

export const EXPORT_FORMATS = ["epub", "docx", "md", "html", "pdf"] as const;

export const ExportOptionsSchema = z
  .object({
    format: z.enum(EXPORT_FORMATS).describe("epub, docx, md, html or pdf"),
    chapters: ChapterRangeSchema.optional().describe(
      "A..B, A.., ..B or N: the chapters to compile, by number in reading order (1 is the first)",
    ),
  })
  .strict();
export type ExportOptions = z.infer<typeof ExportOptionsSchema>;

/** The media type of each format's file. */
export const EXPORT_MEDIA_TYPES: Record<ExportOptions["format"], string> = {
  epub: "application/epub+zip",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  md: "text/markdown; charset=utf-8",
  html: "text/html; charset=utf-8",
  pdf: "application/pdf",
};

export interface ExportResult {
  bytes: Uint8Array;
  /** A file name for the download: the project's name and the format's extension. */
  fileName: string;
  mediaType: string;
  chapters: number;
  warnings: string[];
}

/** Compile a project's book in one format. */
export async function exportBook(project: Project, raw: ExportOptions): Promise<ExportResult> {
  const opts = parseOrThrow(ExportOptionsSchema, raw, "options");
  const book = readBook(project, opts.chapters ? parseChapterRange(opts.chapters) : null);
  const text = (s: string) => new TextEncoder().encode(s);
  const build = {
    epub: () => buildEpub(book, project.name),
    docx: () => buildDocx(book),
    md: async () => text(buildMarkdown(book)),
    html: async () => text(buildHtml(book)),
    pdf: () => buildPdf(book),
  }[opts.format];
  return {
    bytes: await build(),
    fileName: `${project.name}.${opts.format}`,
    mediaType: EXPORT_MEDIA_TYPES[opts.format],
    chapters: book.chapters.length,
    warnings: book.warnings,
  };
}
