// The pieces every rendered format shares: a part's HTML (through the one Markdown renderer, so the
// book prints what the preview shows), the book's labels in its language, and its stylesheet.
import { renderMarkdown } from "../../markdown/index.js";
import type { Book, BookPart } from "./manuscript.js";

/** Escape text for XML and HTML alike (text and attribute values). */
export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A part's body as an XHTML fragment; `docId` keeps its footnote ids apart from other parts'. */
export function partBodyHtml(part: BookPart, docId: string): string {
  // Images of the manuscript are not packaged yet: a book shows their alt text (as the preview does).
  return renderMarkdown(part.markdown, { docId, webLinksOnly: true, image: () => null });
}

/** Words the book itself prints, in its language. */
export function labels(book: Book): { contents: string; by: (author: string) => string; cover: string } {
  return book.language === "zh"
    ? { contents: "目录", by: (a) => `${a} 著`, cover: "封面" }
    : { contents: "Contents", by: (a) => `by ${a}`, cover: "Cover" };
}

/** The book's stylesheet; Chinese gets CJK fonts, justified lines, two-character indents and strict breaking. */
export function bookCss(book: Book): string {
  const common = `body { margin: 0 5%; }
h1.chapter-title { margin: 2em 0 1.5em; text-align: center; font-weight: normal; }
.title-page { text-align: center; margin-top: 30%; }
.title-page h1 { font-size: 2em; font-weight: normal; }
.title-page .author { margin-top: 2em; font-size: 1.2em; }
nav ol { list-style: none; padding: 0; }
hr { border: 0; margin: 1.5em 0; text-align: center; }
hr::after { content: "${book.language === "zh" ? "◇ ◇ ◇" : "* * *"}"; }
hr.footnotes-sep { border-top: 1px solid #999; width: 30%; margin: 2em 0 0.5em; text-align: left; }
hr.footnotes-sep::after { content: none; }
.footnotes { font-size: 0.85em; }
.md-image { font-style: italic; }
.cover { text-align: center; margin: 0; padding: 0; }
.cover img { max-width: 100%; max-height: 100%; }
blockquote { margin: 1em 2em; }
@media print { .part { break-before: page; } }
`;
  const prose =
    book.language === "zh"
      ? `body { font-family: "Noto Serif CJK SC", "Source Han Serif SC", "Songti SC", "SimSun", serif; line-height: 1.8; text-align: justify; line-break: strict; word-break: normal; overflow-wrap: break-word; }
p { margin: 0; text-indent: 2em; }
h1, h2, h3 { font-family: "Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei", sans-serif; }
em { font-style: normal; text-emphasis: dot; -epub-text-emphasis: dot; }
`
      : `body { font-family: Georgia, "Times New Roman", serif; line-height: 1.5; }
p { margin: 0; text-indent: 1.5em; }
h1 + p, hr + p, blockquote p, li p, .footnotes p { text-indent: 0; }
`;
  return common + prose;
}
