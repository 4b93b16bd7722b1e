// DOCX with the `docx` package, from the same markdown-it parse the preview and the EPUB use: chapter
// titles as Heading 1 (what word processors and the importer take for chapters), each on a new page;
// emphasis, links, lists, quotes, code, tables, footnotes as real Word footnotes, scene breaks as a
// centred `* * *` paragraph.
import {
  AlignmentType,
  Document,
  ExternalHyperlink,
  FootnoteReferenceRun,
  HeadingLevel,
  Packer,
  Paragraph,
  type ParagraphChild,
  Table,
  TableCell,
  TableOfContents,
  TableRow,
  TextRun,
  WidthType,
} from "docx";
import type { Token } from "markdown-it";
import { parseMarkdown } from "../../markdown/index.js";
import { labels } from "./compose.js";
import type { Book, BookPart } from "./manuscript.js";

type Block = Paragraph | Table;

const HEADINGS = [
  HeadingLevel.HEADING_1,
  HeadingLevel.HEADING_2,
  HeadingLevel.HEADING_3,
  HeadingLevel.HEADING_4,
  HeadingLevel.HEADING_5,
  HeadingLevel.HEADING_6,
] as const;

interface Style {
  italics?: boolean;
  bold?: boolean;
  strike?: boolean;
  code?: boolean;
}

/** Builds a document's blocks and footnotes from token streams; footnote numbers run book-wide. */
class DocxWriter {
  readonly footnotes: Record<number, { children: Paragraph[] }> = {};
  private nextNote = 1;

  /** The blocks of one part; its footnote ids are renumbered after those of earlier parts. */
  part(tokens: Token[]): Block[] {
    const base = this.nextNote;
    let maxId = -1;
    const out: Block[] = [];
    let quote = 0;
    const lists: { ordered: boolean; n: number }[] = [];
    let note: Paragraph[] | null = null;
    let noteId = 0;
    let heading: (typeof HEADINGS)[number] | null = null;
    let table: { rows: Paragraph[][]; header: boolean }[] = [];
    let cells: Paragraph[] | null = null;
    const emit = (b: Block) => {
      if (cells) cells.push(b as Paragraph);
      else (note ?? out).push(b);
    };
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!;
      switch (t.type) {
        case "heading_open":
          // The chapter's title is the only Heading 1; the text's own headings sit one level below.
          heading = HEADINGS[Math.min(Number(t.tag.slice(1)), 5)]!;
          break;
        case "heading_close":
          heading = null;
          break;
        case "blockquote_open":
          quote++;
          break;
        case "blockquote_close":
          quote--;
          break;
        case "bullet_list_open":
        case "ordered_list_open":
          lists.push({ ordered: t.type === "ordered_list_open", n: Number(t.attrGet("start") ?? 1) });
          break;
        case "bullet_list_close":
        case "ordered_list_close":
          lists.pop();
          break;
        case "inline": {
          const runs = this.inline(t.children ?? [], base);
          const list = lists.at(-1);
          const inItem =
            tokens[i - 1]?.type === "paragraph_open" && list && tokens[i - 2]?.type === "list_item_open";
          if (inItem && list) {
            const marker = list.ordered ? `${list.n++}. ` : "• ";
            runs.unshift(new TextRun(marker));
          }
          emit(
            new Paragraph({
              children: runs,
              ...(heading ? { heading } : {}),
              ...(quote || lists.length ? { indent: { left: 720 * (quote + lists.length) } } : {}),
            }),
          );
          break;
        }
        case "fence":
        case "code_block":
          for (const line of t.content.replace(/\n$/, "").split("\n")) {
            emit(new Paragraph({ children: [new TextRun({ text: line, font: "Courier New" })] }));
          }
          break;
        case "hr":
          emit(new Paragraph({ alignment: AlignmentType.CENTER, children: [new TextRun("* * *")] }));
          break;
        case "footnote_open":
          note = [];
          noteId = (t.meta as { id: number }).id;
          break;
        case "footnote_close":
          this.footnotes[base + noteId] = { children: note ?? [] };
          maxId = Math.max(maxId, noteId);
          note = null;
          break;
        case "table_open":
          table = [];
          break;
        case "tr_open":
          table.push({ rows: [], header: tokens[i - 1]?.type === "thead_open" });
          break;
        case "th_open":
        case "td_open":
          cells = [];
          break;
        case "th_close":
        case "td_close":
          table.at(-1)?.rows.push(cells ?? []);
          cells = null;
          break;
        case "table_close":
          out.push(
            new Table({
              width: { size: 100, type: WidthType.PERCENTAGE },
              rows: table.map(
                (r) =>
                  new TableRow({
                    ...(r.header ? { tableHeader: true } : {}),
                    children: r.rows.map(
                      (c) => new TableCell({ children: c.length ? c : [new Paragraph("")] }),
                    ),
                  }),
              ),
            }),
          );
          break;
      }
    }
    this.nextNote = base + maxId + 1;
    return out;
  }

  private inline(tokens: Token[], noteBase: number): ParagraphChild[] {
    const out: ParagraphChild[] = [];
    const style: Style = {};
    let link: { href: string; runs: TextRun[] } | null = null;
    const text = (s: string, extra: Style = {}) => {
      const st = { ...style, ...extra };
      const run = new TextRun({
        text: s,
        ...(st.italics ? { italics: true } : {}),
        ...(st.bold ? { bold: true } : {}),
        ...(st.strike ? { strike: true } : {}),
        ...(st.code ? { font: "Courier New" } : {}),
        ...(link ? { style: "Hyperlink" } : {}),
      });
      if (link) link.runs.push(run);
      else out.push(run);
    };
    for (const t of tokens) {
      switch (t.type) {
        case "text":
          text(t.content);
          break;
        case "code_inline":
          text(t.content, { code: true });
          break;
        case "softbreak":
          text(" ");
          break;
        case "hardbreak":
          out.push(new TextRun({ break: 1 }));
          break;
        case "em_open":
          style.italics = true;
          break;
        case "em_close":
          style.italics = false;
          break;
        case "strong_open":
          style.bold = true;
          break;
        case "strong_close":
          style.bold = false;
          break;
        case "s_open":
          style.strike = true;
          break;
        case "s_close":
          style.strike = false;
          break;
        case "link_open":
          link = { href: t.attrGet("href") ?? "", runs: [] };
          break;
        case "link_close":
          if (link) out.push(new ExternalHyperlink({ link: link.href, children: link.runs }));
          link = null;
          break;
        case "image":
          text(t.content, { italics: true });
          break;
        case "footnote_ref": {
          out.push(new FootnoteReferenceRun(noteBase + (t.meta as { id: number }).id));
          break;
        }
      }
    }
    return out;
  }
}

function partBlocks(writer: DocxWriter, part: BookPart, pageBreak: boolean): Block[] {
  // Only web and mail links survive in a book (as in the EPUB); a DOCX link needs an absolute URL.
  const blocks = writer.part(parseMarkdown(part.markdown, { webLinksOnly: true }));
  if (!part.title) return blocks;
  return [
    new Paragraph({ text: part.title, heading: HeadingLevel.HEADING_1, pageBreakBefore: pageBreak }),
    ...blocks,
  ];
}

/** The book as a DOCX: title page, a contents field word processors fill in, then the parts. */
export async function buildDocx(book: Book): Promise<Uint8Array> {
  const l = labels(book);
  const writer = new DocxWriter();
  const titlePage: Paragraph[] = [
    new Paragraph({ heading: HeadingLevel.TITLE, alignment: AlignmentType.CENTER, text: book.title }),
  ];
  if (book.author)
    titlePage.push(new Paragraph({ alignment: AlignmentType.CENTER, text: l.by(book.author) }));
  const body: (Block | TableOfContents)[] = [
    ...titlePage,
    new Paragraph({ pageBreakBefore: true, text: l.contents }),
    new TableOfContents(l.contents, { hyperlink: true, headingStyleRange: "1-1" }),
  ];
  for (const p of book.front) body.push(...partBlocks(writer, p, true));
  for (const p of book.chapters) body.push(...partBlocks(writer, p, true));
  for (const p of book.back) body.push(...partBlocks(writer, p, true));
  const language = book.language === "zh" ? { value: "zh-CN", eastAsia: "zh-CN" } : { value: "en-GB" };
  const doc = new Document({
    title: book.title,
    // Empty, not the package's "Un-named" default, when the project names no author.
    creator: book.author ?? "",
    lastModifiedBy: "",
    ...(book.summary.trim() ? { description: book.summary.trim() } : {}),
    styles: { default: { document: { run: { language } } } },
    features: { updateFields: true },
    footnotes: writer.footnotes,
    sections: [{ children: body }],
  });
  return new Uint8Array(await Packer.toBuffer(doc));
}
