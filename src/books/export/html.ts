// One standalone HTML page: title page, contents, then each part as a section (the PDF prints it).
import { bookCss, escapeXml, labels, partBodyHtml } from "./compose.js";
import type { Book, BookPart } from "./manuscript.js";

function section(part: BookPart, id: string, kind: string): string {
  const heading = part.title ? `<h1 class="chapter-title">${escapeXml(part.title)}</h1>\n` : "";
  return `<section class="part ${kind}" id="${id}">\n${heading}${partBodyHtml(part, id)}</section>`;
}

/** The book as one HTML document with its stylesheet inline. */
export function buildHtml(book: Book): string {
  const l = labels(book);
  const parts = [
    ...book.front.map((p, i) => ({ part: p, id: `front-${i + 1}`, kind: "front-matter" })),
    ...book.chapters.map((p, i) => ({ part: p, id: `chapter-${i + 1}`, kind: "chapter" })),
    ...book.back.map((p, i) => ({ part: p, id: `back-${i + 1}`, kind: "back-matter" })),
  ];
  const toc = parts
    .filter((p) => p.part.title)
    .map((p) => `<li><a href="#${p.id}">${escapeXml(p.part.title)}</a></li>`)
    .join("\n");
  const author = book.author ? `<p class="author">${escapeXml(l.by(book.author))}</p>\n` : "";
  const lang = escapeXml(book.language);
  return `<!DOCTYPE html>
<html lang="${lang}">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>${escapeXml(book.title)}</title>
<style>
${bookCss(book)}</style>
</head>
<body>
<section class="title-page">
<h1>${escapeXml(book.title)}</h1>
${author}</section>
<nav class="part" id="contents">
<h1>${escapeXml(l.contents)}</h1>
<ol>
${toc}
</ol>
</nav>
${parts.map((p) => section(p.part, p.id, p.kind)).join("\n")}
</body>
</html>
`;
}
