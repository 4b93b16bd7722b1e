// EPUB 3: an OCF zip (mimetype first and stored, as the container spec requires) holding the
// package document, a navigation document, a stylesheet, and one XHTML document per part.
import { createHash } from "node:crypto";
import JSZip from "jszip";
import { bookCss, escapeXml, labels, partBodyHtml } from "./compose.js";
import type { Book, BookPart } from "./manuscript.js";

interface Doc {
  id: string;
  file: string;
  title: string;
  /** Listed in the table of contents. */
  listed: boolean;
  xhtml: string;
  properties?: string;
}

/** A stable identifier for the book: the same project and title give the same urn:uuid. */
function bookId(book: Book, projectName: string): string {
  const h = createHash("sha256").update(`${projectName}\0${book.title}`).digest("hex");
  return `urn:uuid:${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function xhtmlPage(book: Book, title: string, body: string, epubType?: string): string {
  const lang = escapeXml(book.language);
  const type = epubType ? ` epub:type="${epubType}"` : "";
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="${lang}" lang="${lang}">
<head>
<meta charset="UTF-8" />
<title>${escapeXml(title)}</title>
<link rel="stylesheet" type="text/css" href="style.css" />
</head>
<body${type}>
${body}
</body>
</html>
`;
}

function partDoc(book: Book, part: BookPart, id: string, epubType: string): Doc {
  const heading = part.title ? `<h1 class="chapter-title">${escapeXml(part.title)}</h1>\n` : "";
  const body = `<section class="part" epub:type="${epubType}">\n${heading}${partBodyHtml(part, id)}</section>`;
  return {
    id,
    file: `${id}.xhtml`,
    title: part.title || book.title,
    listed: part.title !== "",
    xhtml: xhtmlPage(book, part.title || book.title, body),
  };
}

function titleDoc(book: Book): Doc {
  const l = labels(book);
  const author = book.author ? `<p class="author">${escapeXml(l.by(book.author))}</p>\n` : "";
  const body = `<section class="title-page" epub:type="titlepage">\n<h1>${escapeXml(book.title)}</h1>\n${author}</section>`;
  return {
    id: "title",
    file: "title.xhtml",
    title: book.title,
    listed: false,
    xhtml: xhtmlPage(book, book.title, body),
  };
}

function navDoc(book: Book, docs: Doc[]): Doc {
  const l = labels(book);
  const items = docs
    .filter((d) => d.listed)
    .map((d) => `<li><a href="${d.file}">${escapeXml(d.title)}</a></li>`)
    .join("\n");
  const body = `<nav epub:type="toc" id="toc">\n<h1>${escapeXml(l.contents)}</h1>\n<ol>\n${items}\n</ol>\n</nav>`;
  return {
    id: "nav",
    file: "nav.xhtml",
    title: l.contents,
    listed: false,
    xhtml: xhtmlPage(book, l.contents, body),
    properties: "nav",
  };
}

function packageDocument(book: Book, projectName: string, docs: Doc[], modified: Date): string {
  const lang = escapeXml(book.language);
  const coverItems = book.cover
    ? `<item id="cover-image" href="cover.${book.cover.extension}" media-type="${book.cover.mediaType}" properties="cover-image" />\n`
    : "";
  const manifest = docs
    .map(
      (d) =>
        `<item id="${d.id}" href="${d.file}" media-type="application/xhtml+xml"${d.properties ? ` properties="${d.properties}"` : ""} />`,
    )
    .join("\n");
  const spine = docs.map((d) => `<itemref idref="${d.id}" />`).join("\n");
  const creator = book.author ? `<dc:creator>${escapeXml(book.author)}</dc:creator>\n` : "";
  const summary = book.summary.trim()
    ? `<dc:description>${escapeXml(book.summary.trim())}</dc:description>\n`
    : "";
  // dcterms:modified is CCYY-MM-DDThh:mm:ssZ, without fractions of a second.
  const stamp = modified.toISOString().replace(/\.\d{3}Z$/, "Z");
  return `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="book-id" xml:lang="${lang}">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:identifier id="book-id">${bookId(book, projectName)}</dc:identifier>
<dc:title>${escapeXml(book.title)}</dc:title>
<dc:language>${lang}</dc:language>
${creator}${summary}<meta property="dcterms:modified">${stamp}</meta>
</metadata>
<manifest>
<item id="css" href="style.css" media-type="text/css" />
${coverItems}${manifest}
</manifest>
<spine>
${spine}
</spine>
</package>
`;
}

const CONTAINER = `<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
<rootfiles>
<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml" />
</rootfiles>
</container>
`;

/** The book as an EPUB 3 file. `modified` is the package's dcterms:modified (now, by default). */
export async function buildEpub(book: Book, projectName: string, modified = new Date()): Promise<Uint8Array> {
  const l = labels(book);
  const opening: Doc[] = [];
  if (book.cover) {
    const ext = book.cover.extension;
    const body = `<section class="cover" epub:type="cover"><img src="cover.${ext}" alt="${escapeXml(l.cover)}" /></section>`;
    opening.push({
      id: "cover",
      file: "cover.xhtml",
      title: l.cover,
      listed: false,
      xhtml: xhtmlPage(book, l.cover, body),
    });
  }
  opening.push(titleDoc(book));
  const content = [
    ...book.front.map((p, i) => partDoc(book, p, `front-${i + 1}`, "frontmatter")),
    ...book.chapters.map((p, i) => partDoc(book, p, `chapter-${i + 1}`, "chapter")),
    ...book.back.map((p, i) => partDoc(book, p, `back-${i + 1}`, "backmatter")),
  ];
  // Cover, title page, contents, then the text: the contents page is in the reading order too.
  const ordered = [...opening, navDoc(book, content), ...content];

  const zip = new JSZip();
  zip.file("mimetype", "application/epub+zip", { compression: "STORE" });
  zip.file("META-INF/container.xml", CONTAINER);
  zip.file("OEBPS/content.opf", packageDocument(book, projectName, ordered, modified));
  zip.file("OEBPS/style.css", bookCss(book));
  if (book.cover) zip.file(`OEBPS/cover.${book.cover.extension}`, book.cover.bytes, { compression: "STORE" });
  for (const d of ordered) zip.file(`OEBPS/${d.file}`, d.xhtml);
  return zip.generateAsync({ type: "uint8array", compression: "DEFLATE", compressionOptions: { level: 6 } });
}
