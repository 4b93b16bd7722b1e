import type { Unit } from "../split.js";
import type { ImportWarning } from "../warnings.js";

/** What the book says about itself (document properties, OPF metadata, YAML front matter). */
export interface BookMeta {
  title?: string;
  author?: string;
  /** As written, e.g. `en-GB`, `zh-CN`. */
  language?: string;
}

/** A manuscript read into Markdown: one text to cut into chapters, or chapters the source already cut. */
export interface ReadBook {
  format: "docx" | "epub" | "markdown" | "text" | "folder";
  meta: BookMeta;
  /** The whole book, when it comes as one text. */
  markdown?: string;
  /** The book's own parts and chapters (an EPUB's table of contents, a folder's files), with its front matter. */
  units?: { front: string; units: Unit[] };
  footnotes: Map<string, string>;
  /** The text decoder, for text sources. */
  charset?: string;
  warnings: ImportWarning[];
}
