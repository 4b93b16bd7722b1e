import mammoth from "mammoth";
import { htmlToMarkdown } from "./html-to-markdown.js";
import type { BookMeta, ReadBook } from "./source.js";
import { firstText, parseXml } from "./xml.js";
import { corrupt, openZip, zipText } from "./zip.js";

/** Title, author and language from the document properties (docProps/core.xml). */
function coreMeta(xml: string | null): BookMeta {
  if (!xml) return {};
  const doc = parseXml(xml);
  return {
    title: firstText(doc, "title"),
    author: firstText(doc, "creator"),
    language: firstText(doc, "language"),
  };
}

/**
 * Read a DOCX: mammoth turns the document into HTML by its styles (Heading 1… become headings,
 * footnotes a list it links to), then turndown writes Markdown; Scrivener's DOCX compile reads the same way.
 */
export async function readDocx(bytes: Buffer, label: string): Promise<ReadBook> {
  const zip = await openZip(bytes, label);
  if (!zip.file("word/document.xml")) throw corrupt(label, "no word/document.xml in the archive");
  let html: string;
  try {
    html = (await mammoth.convertToHtml({ buffer: bytes })).value;
  } catch (e) {
    throw corrupt(label, (e as Error).message);
  }
  const { markdown, footnotes } = htmlToMarkdown(html);
  return {
    format: "docx",
    meta: coreMeta(await zipText(zip, "docProps/core.xml")),
    markdown,
    footnotes,
    warnings: [],
  };
}
