// The pieces every rendered format shares: a part's HTML (through the one Markdown renderer, so the
// book prints what the preview shows), the book's labels in its language, and its stylesheet.
import { renderMarkdown } from "../../markdown/index.js";
import type { Book, BookPart } from "./manuscript.js";
import { type Picture, pictureSource } from "./pictures.js";

/** Escape text for XML and HTML alike (text and attribute values). */
export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The pictures a book's chapters show, each read once: packaged as `images/N.ext` files (EPUB) or
 * inlined as data URLs (one HTML page). A remote picture is not fetched and a missing one is
 * warned of; both show their alt text.
 */
export class PictureShelf {
  readonly packaged = new Map<string, { file: string; picture: Picture }>();
  private readonly inlined = new Map<string, string | null>();

  constructor(
    private readonly book: Book,
    private readonly mode: "package" | "inline",
  ) {}

  place(part: BookPart, src: string): string | null {
    const rel = pictureSource(part.path, src);
    if (rel === null) return null;
    const packaged = this.packaged.get(rel);
    if (packaged) return packaged.file;
    if (this.inlined.has(rel)) return this.inlined.get(rel)!;
    const picture = this.book.readPicture(rel);
    if (typeof picture === "string") {
      this.book.warnings.push(
        picture === "missing"
          ? `${part.path} shows ${rel}, which is not a file of the project; its alt text is printed`
          : `${part.path} shows ${rel}, which is not a JPEG, PNG or GIF picture; its alt text is printed`,
      );
      this.inlined.set(rel, null);
      return null;
    }
    if (this.mode === "inline") {
      const url = `data:${picture.mediaType};base64,${Buffer.from(picture.bytes).toString("base64")}`;
      this.inlined.set(rel, url);
      return url;
    }
    const file = `images/${this.packaged.size + 1}.${picture.extension}`;
    this.packaged.set(rel, { file, picture });
    return file;
  }
}

/** A part's body as an XHTML fragment; `docId` keeps its footnote ids apart from other parts'. */
export function partBodyHtml(part: BookPart, docId: string, pictures: PictureShelf): string {
  return renderMarkdown(part.markdown, {
    docId,
    webLinksOnly: true,
    image: (src) => pictures.place(part, src),
  });
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
