import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32, deflateSync } from "node:zlib";
import JSZip from "jszip";
import mammoth from "mammoth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportBook, readBook } from "../../src/books/export/index.js";
import { chromiumPath } from "../../src/books/export/pdf.js";
import { importBook } from "../../src/books/import/index.js";
import { openPlotContext, saveChapter } from "../../src/plot/index.js";
import { createSampleProject } from "../../src/sample/seed.js";
import type { Project } from "../../src/workspace/project.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { epubcheckCommand, runEpubcheck } from "./epubcheck.js";

/** A 2×2 PNG, built here (signature, IHDR, IDAT, IEND with their CRCs). */
function png(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.from([0, 0, 0, 2, 0, 0, 0, 2, 8, 2, 0, 0, 0]);
  const rows = Buffer.from([0, 200, 30, 30, 30, 30, 200, 0, 30, 200, 30, 200, 200, 200]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

function write(project: Project, rel: string, text: string | Buffer): void {
  const abs = join(project.root, ...rel.split("/"));
  mkdirSync(join(abs, ".."), { recursive: true });
  writeFileSync(abs, text);
}

const RICH_ONE = `---
chapter: the-ferry
---
# The Ferry

She said *nothing* and **everything**.[^a] See [the map](https://example.org/map) and
[Mira's entry](../../lorebook/mira/index.md).

* * *

A second scene, with <b onclick="x">raw markup</b> shown as text.  
A hard break, and a table:

| bell | rings |
|------|-------|
| third | before floods |

[^a]: The note, with *emphasis*.
`;

const RICH_TWO = `# The Shore

The shore had a footnote too.[^a]

＊＊＊

Last scene.

[^a]: The second chapter's own first note.
`;

let dir: string;
let ws: Workspace;
let en: Project;
let zh: Project;
let rich: Project;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "nbook-export-"));
  ws = Workspace.init(join(dir, "ws"));
  en = await createSampleProject(ws, "tide-en", { language: "en" });
  zh = await createSampleProject(ws, "tide-zh", { language: "zh" });
  rich = ws.createProject("rich", { title: "Rich & <Strange>", language: "en" });
  write(
    rich,
    "project.yaml",
    "title: Rich & <Strange>\nsummary: A test book.\nlanguage: en\nauthor: A. Writer\n",
  );
  // Folder order is shore, ferry; the plot reads ferry first (by the file's front matter), then shore.
  write(rich, "manuscript/01-the-shore/index.md", RICH_TWO);
  write(rich, "manuscript/02-crossing/index.md", RICH_ONE);
  write(rich, "manuscript/front-matter.md", "For the ferrymen.\n");
  write(rich, "manuscript/back-matter.md", "# Afterword\n\nThanks.\n");
  write(rich, "cover.png", png());
  const pc = await openPlotContext(rich, "user");
  saveChapter(pc, { action: "create", name: "the-ferry", title: "The Ferry (plot)" });
  saveChapter(pc, { action: "create", name: "the-shore", title: "The Shore (plot)" });
}, 60_000);

afterAll(() => {
  ws.close();
  rmSync(dir, { recursive: true, force: true });
});

async function unzip(bytes: Uint8Array): Promise<JSZip> {
  return JSZip.loadAsync(bytes);
}

describe("EPUB export", () => {
  const check = epubcheckCommand();
  const missing = !check && !process.env.CI;
  if (missing)
    console.warn("epubcheck is not installed (apt-get install epubcheck): the epubcheck test is skipped");

  it.skipIf(missing)(
    "English and Chinese samples, and a book with cover, footnotes, tables and matter files, pass epubcheck with no errors",
    async () => {
      expect(check, "epubcheck must be installed in CI (.ci/run installs it)").not.toBeNull();
      const files: string[] = [];
      for (const p of [en, zh, rich]) {
        const out = join(dir, `${p.name}.epub`);
        writeFileSync(out, (await exportBook(p, { format: "epub" })).bytes);
        files.push(out);
      }
      const results = await Promise.all(files.map((f) => runEpubcheck(check!, f)));
      for (const [i, r] of results.entries()) {
        expect({ file: files[i], ok: r.ok, errors: r.report.match(/^(ERROR|FATAL).*$/gm) ?? [] }).toEqual({
          file: files[i],
          ok: true,
          errors: [],
        });
        expect(r.report).toMatch(/0 fatals \/ 0 errors/);
      }
    },
    180_000,
  );

  it("stores mimetype first and uncompressed, and declares the language (zh gets CJK styling)", async () => {
    const bytes = (await exportBook(zh, { format: "epub" })).bytes;
    // The OCF rule: the first local file header names "mimetype", method 0 (stored).
    const head = Buffer.from(bytes.subarray(0, 38 + 20));
    expect(head.readUInt32LE(0)).toBe(0x04034b50);
    expect(head.readUInt16LE(8)).toBe(0);
    expect(head.subarray(30, 38).toString("ascii")).toBe("mimetype");
    expect(head.subarray(38, 58).toString("ascii")).toBe("application/epub+zip");
    const zip = await unzip(bytes);
    const opf = await zip.file("OEBPS/content.opf")!.async("string");
    expect(opf).toContain("<dc:language>zh</dc:language>");
    expect(opf).toContain("<dc:title>潮钟</dc:title>");
    const ch1 = await zip.file("OEBPS/chapter-1.xhtml")!.async("string");
    expect(ch1).toContain('xml:lang="zh" lang="zh"');
    const css = await zip.file("OEBPS/style.css")!.async("string");
    expect(css).toContain("Noto Serif CJK SC");
    expect(css).toContain("text-indent: 2em");
    const nav = await zip.file("OEBPS/nav.xhtml")!.async("string");
    expect(nav).toContain("目录");
  });

  it("follows the plot's order, keeps matter files and the cover, and renders through the shared renderer", async () => {
    const r = await exportBook(rich, { format: "epub" });
    expect(r.chapters).toBe(2);
    expect(r.warnings).toEqual([]);
    const zip = await unzip(r.bytes);
    const opf = await zip.file("OEBPS/content.opf")!.async("string");
    expect(opf).toContain("<dc:creator>A. Writer</dc:creator>");
    expect(opf).toContain("<dc:title>Rich &#38; &#60;Strange&#62;</dc:title>");
    expect(opf).toContain('properties="cover-image"');
    expect(zip.file("OEBPS/cover.png")).not.toBeNull();
    const spine = [...opf.matchAll(/<itemref idref="([^"]+)"/g)].map((m) => m[1]);
    expect(spine).toEqual(["cover", "title", "nav", "front-1", "chapter-1", "chapter-2", "back-1"]);
    const one = await zip.file("OEBPS/chapter-1.xhtml")!.async("string");
    const two = await zip.file("OEBPS/chapter-2.xhtml")!.async("string");
    // The file's own heading is the title; the plot's title is only the fallback.
    expect(one).toContain('<h1 class="chapter-title">The Ferry</h1>');
    expect(two).toContain('<h1 class="chapter-title">The Shore</h1>');
    expect(one).toContain("<em>nothing</em>");
    expect(one).toContain('<a href="https://example.org/map">the map</a>');
    // A link to a project file has no page in the book: its text stays, the link goes.
    expect(one).toContain("Mira's entry");
    expect(one).not.toContain("lorebook/mira");
    expect(one).toContain("&lt;b onclick=&quot;x&quot;&gt;");
    expect(one).toContain("<br />");
    expect(one).toContain("<table>");
    // Each chapter's footnotes keep ids of their own.
    expect(one).toContain('id="fn-chapter-1-1"');
    expect(two).toContain('id="fn-chapter-2-1"');
    expect(two.match(/<hr \/>/g)?.length).toBeGreaterThanOrEqual(1);
    const nav = await zip.file("OEBPS/nav.xhtml")!.async("string");
    expect(nav.indexOf("The Ferry")).toBeLessThan(nav.indexOf("The Shore"));
    expect(nav).toContain("Afterword");
  });
});

describe("chapter order and selection", () => {
  it("takes folder order when the plot has no chapters, and warns of files and plot chapters that do not match", async () => {
    const p = ws.createProject("loose");
    write(p, "manuscript/10-later.md", "# Later\n\nB.\n");
    write(p, "manuscript/2-earlier/index.md", "# Earlier\n\nA.\n");
    const md = new TextDecoder().decode((await exportBook(p, { format: "md" })).bytes);
    expect(md.indexOf("# Earlier")).toBeLessThan(md.indexOf("# Later"));
    const pc = await openPlotContext(p, "user");
    saveChapter(pc, { action: "create", name: "later", title: "Later" });
    saveChapter(pc, { action: "create", name: "missing", title: "Missing" });
    const r = await exportBook(p, { format: "md" });
    const text = new TextDecoder().decode(r.bytes);
    expect(text.indexOf("# Later")).toBeLessThan(text.indexOf("# Earlier"));
    expect(r.warnings).toEqual([
      'Plot chapter "missing" (Missing) has no file in manuscript/; it is left out',
      "manuscript/2-earlier/index.md is not a chapter of the plot; it is placed after the plot's chapters",
    ]);
  });

  it("exports a chapter range, and refuses one past the end or written wrongly", async () => {
    const r = await exportBook(rich, { format: "html", chapters: "2..2" });
    const html = new TextDecoder().decode(r.bytes);
    expect(r.chapters).toBe(1);
    expect(html).toContain("The Shore");
    expect(html).not.toContain("The Ferry");
    await expect(exportBook(rich, { format: "html", chapters: "2..5" })).rejects.toMatchObject({
      code: "invalid_input",
      message: "Chapters 2..5: the book has 2 chapters",
    });
    await expect(exportBook(rich, { format: "html", chapters: "3..1" })).rejects.toMatchObject({
      code: "invalid_input",
      fields: [{ pointer: "/chapters" }],
    });
    await expect(exportBook(rich, { format: "rtf" as "md" })).rejects.toMatchObject({
      code: "invalid_input",
      fields: [{ pointer: "/format" }],
    });
  });

  it("refuses a project with no chapters with a clear error", async () => {
    const p = ws.createProject("empty");
    await expect(exportBook(p, { format: "epub" })).rejects.toMatchObject({
      code: "not_found",
      message: expect.stringContaining("empty has no chapters to export"),
    });
  });
});

describe("HTML, Markdown and PDF", () => {
  it("HTML is one page in the project's language, with per-chapter footnote ids", async () => {
    const html = new TextDecoder().decode((await exportBook(rich, { format: "html" })).bytes);
    expect(html).toMatch(/^<!DOCTYPE html>\n<html lang="en">/);
    expect(html).toContain('<a href="#chapter-1">The Ferry</a>');
    expect(html).toContain('id="fn-chapter-1-1"');
    expect(html).toContain('id="fn-chapter-2-1"');
    expect(html).not.toContain("<b onclick");
  });

  it("Markdown keeps the metadata as YAML and makes footnote labels unique per chapter", async () => {
    const md = new TextDecoder().decode((await exportBook(rich, { format: "md" })).bytes);
    expect(md.startsWith("---\ntitle: Rich & <Strange>\nauthor: A. Writer\nlang: en\n---\n")).toBe(true);
    expect(md).toContain("[^c1-a]: The note");
    expect(md).toContain("[^c2-a]: The second chapter's own first note.");
    expect(md).toContain("# Afterword");
  });

  it.skipIf(!existsSync(chromiumPath()))(
    "PDF prints the Chinese sample through headless Chromium",
    async () => {
      const pdf = Buffer.from((await exportBook(zh, { format: "pdf" })).bytes);
      expect(pdf.subarray(0, 5).toString("ascii")).toBe("%PDF-");
      // Title page, contents, two chapters: each part starts a page.
      expect(pdf.toString("latin1").match(/\/Type\s*\/Page\b/g)?.length).toBeGreaterThanOrEqual(4);
    },
    60_000,
  );

  it("PDF without Chromium is a clear error naming the Debian package", async () => {
    const saved = process.env.NBOOK_CHROMIUM;
    process.env.NBOOK_CHROMIUM = join(dir, "no-chromium");
    try {
      await expect(exportBook(en, { format: "pdf" })).rejects.toMatchObject({
        code: "unsupported",
        message: expect.stringContaining("install the Debian package `chromium`"),
      });
    } finally {
      if (saved === undefined) delete process.env.NBOOK_CHROMIUM;
      else process.env.NBOOK_CHROMIUM = saved;
    }
  });
});

describe("DOCX export", () => {
  /** A chapter's text with Markdown's wrapping and markers set aside: what a reader reads. */
  const words = (s: string) =>
    s
      .replace(/\[\^[^\]]+\]:?/g, "")
      .replace(/[*_#>]/g, "")
      .replace(/\s+/g, " ")
      .trim();

  it("opens as a Word document with chapters as Heading 1, italics and footnotes", async () => {
    const bytes = (await exportBook(rich, { format: "docx" })).bytes;
    const { value: html } = await mammoth.convertToHtml({ buffer: Buffer.from(bytes) });
    // A heading carries the bookmark its contents entry links to.
    expect(html).toMatch(/<h1>(<a id="_Toc\d+"><\/a>)?The Ferry<\/h1>/);
    expect(html).toMatch(/<h1>(<a id="_Toc\d+"><\/a>)?The Shore<\/h1>/);
    expect(html).toContain("<em>nothing</em>");
    expect(html).toContain("<strong>everything</strong>");
    expect(html).toContain("The note, with");
    expect(html).toContain("The second chapter's own first note.");
    expect(html).toContain("<table>");
    const zip = await unzip(bytes);
    expect(await zip.file("docProps/core.xml")!.async("string")).toContain(
      "<dc:creator>A. Writer</dc:creator>",
    );
  });

  it("round-trips through the importer: the same chapters, titles and text", async () => {
    for (const source of [en, zh]) {
      const exported = await exportBook(source, { format: "docx" });
      const result = await importBook(
        ws,
        { bytes: Buffer.from(exported.bytes), name: `${source.name}.docx` },
        { project: `${source.name}-back` },
      );
      const before = readBook(source, null);
      const after = readBook(ws.project(`${source.name}-back`), null);
      expect(result.plan.chapters.map((c) => c.title)).toEqual(before.chapters.map((c) => c.title));
      expect(after.chapters.map((c) => c.title)).toEqual(before.chapters.map((c) => c.title));
      expect(after.chapters.map((c) => words(c.markdown))).toEqual(
        before.chapters.map((c) => words(c.markdown)),
      );
      expect(result.plan.language).toBe(source.meta().language);
    }
  });
});
