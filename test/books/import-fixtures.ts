import { Document, FootnoteReferenceRun, HeadingLevel, Packer, Paragraph, TextRun } from "docx";
import iconv from "iconv-lite";
import JSZip from "jszip";

/** One chapter of a generated DOCX: its heading and paragraphs, each a list of runs. */
export interface DocxChapter {
  title: string;
  paragraphs: { text: string; italics?: boolean; bold?: boolean; footnote?: number }[][];
}

/** A DOCX built with the `docx` package: front text, then each chapter under a Heading 1. */
export async function buildDocx(opts: {
  title: string;
  author: string;
  front: string[];
  chapters: DocxChapter[];
  footnotes: Record<number, string>;
}): Promise<Buffer> {
  const para = (runs: DocxChapter["paragraphs"][number]) =>
    new Paragraph({
      children: runs.map((r) =>
        r.footnote
          ? new FootnoteReferenceRun(r.footnote)
          : new TextRun({ text: r.text, italics: r.italics, bold: r.bold }),
      ),
    });
  const doc = new Document({
    title: opts.title,
    creator: opts.author,
    footnotes: Object.fromEntries(
      Object.entries(opts.footnotes).map(([k, v]) => [k, { children: [new Paragraph(v)] }]),
    ),
    sections: [
      {
        children: [
          ...opts.front.map((t) => new Paragraph(t)),
          ...opts.chapters.flatMap((c) => [
            new Paragraph({ text: c.title, heading: HeadingLevel.HEADING_1 }),
            ...c.paragraphs.map(para),
          ]),
        ],
      },
    ],
  });
  return Buffer.from(await Packer.toBuffer(doc));
}

/** An EPUB 3 built with jszip: a nav document whose nesting makes parts, one XHTML file a chapter. */
export async function buildEpub(opts: {
  title: string;
  author: string;
  language: string;
  parts: { title: string; chapters: { title: string; paragraphs: string[] }[] }[];
  encrypted?: boolean;
}): Promise<Buffer> {
  const zip = new JSZip();
  zip.file("mimetype", "application/epub+zip", { compression: "STORE" });
  zip.file(
    "META-INF/container.xml",
    `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`,
  );
  if (opts.encrypted) {
    zip.file(
      "META-INF/encryption.xml",
      `<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/><enc:CipherData><enc:CipherReference URI="OEBPS/c1.xhtml"/></enc:CipherData></enc:EncryptedData></encryption>`,
    );
  }
  const items: string[] = [];
  const spine: string[] = [];
  const nav: string[] = [];
  let n = 0;
  const page = (title: string, body: string) =>
    `<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>${title}</title></head><body>${body}</body></html>`;
  zip.file("OEBPS/title.xhtml", page(opts.title, `<h1>${opts.title}</h1><p>by ${opts.author}</p>`));
  items.push(`<item id="title" href="title.xhtml" media-type="application/xhtml+xml"/>`);
  spine.push(`<itemref idref="title"/>`);
  for (const part of opts.parts) {
    const pid = `p${++n}`;
    zip.file(`OEBPS/${pid}.xhtml`, page(part.title, `<h1>${part.title}</h1>`));
    items.push(`<item id="${pid}" href="${pid}.xhtml" media-type="application/xhtml+xml"/>`);
    spine.push(`<itemref idref="${pid}"/>`);
    const sub: string[] = [];
    for (const ch of part.chapters) {
      const cid = `c${++n}`;
      zip.file(
        `OEBPS/${cid}.xhtml`,
        page(ch.title, `<h2>${ch.title}</h2>${ch.paragraphs.map((p) => `<p>${p}</p>`).join("")}`),
      );
      items.push(`<item id="${cid}" href="${cid}.xhtml" media-type="application/xhtml+xml"/>`);
      spine.push(`<itemref idref="${cid}"/>`);
      sub.push(`<li><a href="${cid}.xhtml">${ch.title}</a></li>`);
    }
    nav.push(`<li><a href="${pid}.xhtml">${part.title}</a><ol>${sub.join("")}</ol></li>`);
  }
  zip.file(
    "OEBPS/nav.xhtml",
    `<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>Contents</title></head><body><nav epub:type="toc"><ol>${nav.join("")}</ol></nav></body></html>`,
  );
  items.push(`<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>`);
  zip.file(
    "OEBPS/content.opf",
    `<?xml version="1.0" encoding="utf-8"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">urn:uuid:1</dc:identifier><dc:title>${opts.title}</dc:title><dc:creator>${opts.author}</dc:creator><dc:language>${opts.language}</dc:language></metadata><manifest>${items.join("")}</manifest><spine>${spine.join("")}</spine></package>`,
  );
  return zip.generateAsync({ type: "nodebuffer" });
}

/** Text encoded as GBK (GB18030's two-byte part). */
export function gbk(text: string): Buffer {
  return iconv.encode(text, "gbk");
}

/** The first bytes of a password-protected Office file: an OLE container with an EncryptedPackage stream. */
export function encryptedOfficeFile(): Buffer {
  const header = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
  return Buffer.concat([
    header,
    Buffer.alloc(504),
    Buffer.from("EncryptionInfo", "utf16le"),
    Buffer.alloc(64),
    Buffer.from("EncryptedPackage", "utf16le"),
    Buffer.alloc(2048),
  ]);
}
