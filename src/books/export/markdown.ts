// One Markdown file: the book's metadata, contents, and each part under its own `#` heading. Footnote
// labels are made unique per part, since every chapter may number its own from 1.
import { stringify } from "yaml";
import { labels } from "./compose.js";
import type { Book, BookPart } from "./manuscript.js";

function relabelFootnotes(markdown: string, prefix: string): string {
  return markdown.replace(/\[\^([^\]\s]+)\]/g, (_, label: string) => `[^${prefix}-${label}]`);
}

function part(p: BookPart, prefix: string): string {
  const body = relabelFootnotes(p.markdown.trim(), prefix);
  return p.title ? `# ${p.title}\n\n${body}\n` : `${body}\n`;
}

/** The book as one Markdown document. */
export function buildMarkdown(book: Book): string {
  const l = labels(book);
  // The metadata as a YAML block, as Pandoc and static-site tools read it (and the preview skips it).
  const meta: Record<string, string> = { title: book.title };
  if (book.author) meta.author = book.author;
  meta.lang = book.language;
  const titled = [...book.front, ...book.chapters, ...book.back].filter((p) => p.title);
  const toc = titled.map((p, i) => `${i + 1}. ${p.title}`).join("\n");
  const parts = [
    ...book.front.map((p, i) => part(p, `f${i + 1}`)),
    ...book.chapters.map((p, i) => part(p, `c${i + 1}`)),
    ...book.back.map((p, i) => part(p, `b${i + 1}`)),
  ];
  return `---\n${stringify(meta)}---\n\n**${l.contents}**\n\n${toc}\n\n${parts.join("\n")}`;
}
