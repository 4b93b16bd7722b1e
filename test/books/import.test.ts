import { existsSync, mkdirSync, readdirSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { importBook } from "../../src/books/import/index.js";
import { NbError } from "../../src/core/errors.js";
import { listChapters, openPlotContext } from "../../src/plot/index.js";
import { readProjectMeta } from "../../src/workspace/project-meta.js";
import { makeTestBed, type TestBed } from "../helpers.js";
import { buildDocx, buildEpub, type DocxChapter, encryptedOfficeFile, gbk } from "./import-fixtures.js";

let bed: TestBed;
beforeEach(() => {
  bed = makeTestBed("existing");
});
afterEach(() => bed.cleanup());

const file = (name: string, data: string | Buffer) => {
  const p = join(bed.dir, name);
  writeFileSync(p, data);
  return p;
};
const chapterText = (project: string, folder: string) =>
  readFileSync(join(bed.ws.root, project, "manuscript", folder, "index.md"), "utf8");
const folders = (project: string) =>
  readdirSync(join(bed.ws.root, project, "manuscript"), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
async function plotChapters(project: string) {
  const pc = await openPlotContext(bed.ws.project(project), "user");
  return listChapters(pc, { limit: 200 }).rows as { name: string; title: string; actId: number | null }[];
}
async function failure(p: Promise<unknown>): Promise<NbError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(NbError);
  return e as NbError;
}

const NAMES = [
  "Bell",
  "Marsh",
  "Ledger",
  "Creek",
  "Flood",
  "Fog",
  "Eels",
  "Oak",
  "Reeds",
  "Tide",
  "Rope",
  "Keeper",
];

function docxChapter(i: number): DocxChapter {
  const first: DocxChapter["paragraphs"][number] = [
    { text: "The " },
    { text: "bell", italics: true },
    { text: " rang " },
    { text: "twice", bold: true },
    { text: ` in chapter ${i}.` },
  ];
  if (i === 5) first.push({ text: "", footnote: 1 });
  return {
    title: `Chapter ${i}: The ${NAMES[i - 1]}`,
    paragraphs: [
      first,
      [{ text: i === 7 ? "＊＊＊" : "* * *" }],
      [{ text: `She counted one, two, three, and it was ${NAMES[i - 1].toLowerCase()} again.` }],
    ],
  };
}

function expectedChapter(i: number): string {
  const note = i === 5 ? "[^1]" : "";
  const tail = i === 5 ? "\n\n[^1]: A note on the tide." : "";
  const brk = i === 7 ? "＊＊＊" : "* * *";
  return `# Chapter ${i}: The ${NAMES[i - 1]}\n\nThe *bell* rang **twice** in chapter ${i}.${note}\n\n${brk}\n\nShe counted one, two, three, and it was ${NAMES[i - 1].toLowerCase()} again.${tail}\n`;
}

describe("importBook: DOCX", () => {
  it("turns a DOCX of 12 chapters into 12 chapter folders whose text matches character for character", async () => {
    const docx = await buildDocx({
      title: "The Tide-Bell Keeper",
      author: "Ann Marsh",
      front: ["For my mother.", "Copyright 2026."],
      chapters: Array.from({ length: 12 }, (_, i) => docxChapter(i + 1)),
      footnotes: { 1: "A note on the tide." },
    });
    const r = await importBook(bed.ws, { path: file("tide.docx", docx) }, {});
    expect(r.written).toBe(true);
    expect(r.plan.project).toBe("the-tide-bell-keeper");
    expect(r.plan.format).toBe("docx");
    expect(r.plan.chapters).toHaveLength(12);
    const f = folders("the-tide-bell-keeper");
    expect(f).toHaveLength(12);
    expect(f[0]).toBe("01-chapter-1-the-bell");
    expect(f[11]).toBe("12-chapter-12-the-keeper");
    for (let i = 1; i <= 12; i++)
      expect(chapterText("the-tide-bell-keeper", f[i - 1])).toBe(expectedChapter(i));
    expect(
      readFileSync(join(bed.ws.root, "the-tide-bell-keeper", "manuscript", "front-matter.md"), "utf8"),
    ).toBe("For my mother.\n\nCopyright 2026.\n");
    const meta = readProjectMeta(join(bed.ws.root, "the-tide-bell-keeper"));
    expect(meta).toMatchObject({ title: "The Tide-Bell Keeper", author: "Ann Marsh", language: "en" });
    const plot = await plotChapters("the-tide-bell-keeper");
    expect(plot.map((c) => c.title)).toEqual(
      Array.from({ length: 12 }, (_, i) => `Chapter ${i + 1}: The ${NAMES[i]}`),
    );
    expect(r.plan.words).toBeGreaterThan(12 * 15);
  });

  it("refuses a damaged DOCX and a password-protected one, leaving nothing behind", async () => {
    const before = readdirSync(bed.ws.root).sort();
    const damaged = Buffer.concat([Buffer.from("PK\u0003\u0004"), Buffer.alloc(200, 7)]);
    const e1 = await failure(importBook(bed.ws, { path: file("broken.docx", damaged) }, {}));
    expect(e1.code).toBe("invalid_input");
    expect(e1.details).toEqual({ reason: "corrupt_file" });
    const e2 = await failure(importBook(bed.ws, { path: file("locked.docx", encryptedOfficeFile()) }, {}));
    expect(e2.code).toBe("unsupported");
    expect(e2.details).toEqual({ reason: "encrypted" });
    expect(e2.message).toMatch(/password/);
    expect(readdirSync(bed.ws.root).sort()).toEqual(before);
  });
});

describe("importBook: plain text", () => {
  it("reads a GBK text file with 第X章 headings and a 楔子 into chapters in order, with a part as an act", async () => {
    const text = [
      "潮钟守夜人",
      "作者：林岚",
      "",
      "楔子",
      "　　雾在正午散了。",
      "第一卷 潮声",
      "第一章 沉钟",
      "　　林岚听见第三口钟响了。",
      "　　天上没有云。",
      "第二章 低潮",
      "　　退潮的时候，小河露出了肋骨。",
      "＊＊＊",
      "　　汤姆跟在后面。",
      "第十二章 尾",
      "　　钟又响了。",
      "番外 旧账",
      "　　账本少了一页。",
    ].join("\r\n");
    const r = await importBook(bed.ws, { path: file("潮钟.txt", gbk(text)) }, { project: "tide-zh" });
    expect(r.plan.encoding).toBe("gb18030");
    expect(r.plan.language).toBe("zh");
    expect(r.plan.chapters.map((c) => c.title)).toEqual([
      "楔子",
      "第一章 沉钟",
      "第二章 低潮",
      "第十二章 尾",
      "番外 旧账",
    ]);
    expect(r.plan.acts).toEqual([{ name: "part-1", title: "第一卷 潮声" }]);
    expect(r.plan.chapters.map((c) => c.act)).toEqual([null, "part-1", "part-1", "part-1", "part-1"]);
    expect(folders("tide-zh")).toEqual([
      "01-chapter-1",
      "02-chapter-2",
      "03-chapter-3",
      "04-chapter-4",
      "05-chapter-5",
    ]);
    expect(chapterText("tide-zh", "03-chapter-3")).toBe(
      "# 第二章 低潮\n\n退潮的时候，小河露出了肋骨。\n\n＊＊＊\n\n汤姆跟在后面。\n",
    );
    expect(readFileSync(join(bed.ws.root, "tide-zh", "manuscript", "front-matter.md"), "utf8")).toBe(
      "潮钟守夜人\n\n作者：林岚\n",
    );
    expect(r.plan.chapters[1].words).toBe(countHan("第一章 沉钟林岚听见第三口钟响了。天上没有云。"));
    const plot = await plotChapters("tide-zh");
    expect(plot.map((c) => c.title)).toEqual(r.plan.chapters.map((c) => c.title));
    expect(plot.every((c, i) => (i === 0 ? c.actId === null : c.actId !== null))).toBe(true);
  });

  it("finds English chapter patterns in plain text: CHAPTER ONE, Chapter Twenty-One, Prologue, Epilogue, Part II", async () => {
    const text =
      "PROLOGUE\n\nThe fog.\n\nPart II\n\nCHAPTER ONE\n\nMira ran.\n\nChapter Twenty-One: The Bell\n\nChapter one of her life was over, she thought.\n\nEpilogue\n\nIt rang.\n";
    const r = await importBook(bed.ws, { path: file("book.txt", text) }, { dryRun: true });
    expect(r.plan.splitBy).toBe("patterns");
    expect(r.plan.chapters.map((c) => c.title)).toEqual([
      "PROLOGUE",
      "CHAPTER ONE",
      "Chapter Twenty-One: The Bell",
      "Epilogue",
    ]);
    expect(r.plan.acts.map((a) => a.title)).toEqual(["Part II"]);
  });

  it("cuts by --split pattern:REGEX when given, and refuses a pattern that is not a regular expression", async () => {
    const text = "== One ==\n\nFirst.\n\n== Two ==\n\nSecond.\n";
    const r = await importBook(
      bed.ws,
      { path: file("x.txt", text) },
      { dryRun: true, split: "pattern:^== .+ ==$" },
    );
    expect(r.plan.splitBy).toBe("split");
    expect(r.plan.chapters.map((c) => c.title)).toEqual(["== One ==", "== Two =="]);
    const e = await failure(importBook(bed.ws, { path: file("y.txt", text) }, { split: "pattern:([" }));
    expect(e.code).toBe("invalid_input");
    expect(e.fields?.[0].pointer).toBe("/split");
  });

  it("decodes a file mixing UTF-8 and GBK lines line by line, and warns mixed_encodings", async () => {
    const bytes = Buffer.concat([
      Buffer.from("第一章 晨\n林岚听见第三口钟响了。\n", "utf8"),
      gbk("第二章 夜\n天上没有云，也没有风。\n"),
    ]);
    const r = await importBook(bed.ws, { path: file("mixed.txt", bytes) }, { project: "mixed" });
    expect(r.plan.encoding).toBe("mixed");
    expect(r.plan.warnings.map((w) => w.code)).toContain("mixed_encodings");
    expect(chapterText("mixed", "02-chapter-2")).toBe("# 第二章 夜\n\n天上没有云，也没有风。\n");
  });

  it("imports a text with no chapter headings as one chapter and says so", async () => {
    const r = await importBook(
      bed.ws,
      { path: file("notes.txt", "It rained.\n\nIt rained again.\n") },
      { project: "one" },
    );
    expect(r.plan.chapters).toHaveLength(1);
    expect(r.plan.splitBy).toBe("none");
    expect(r.plan.frontMatter).toBeNull();
    expect(r.plan.warnings.map((w) => w.code)).toContain("no_chapter_headings");
    expect(chapterText("one", "01-notes")).toBe("# notes\n\nIt rained.\n\nIt rained again.\n");
  });

  it("warns of duplicate chapter titles and numbers their folders and plot names apart", async () => {
    const r = await importBook(
      bed.ws,
      { path: file("d.md", "# Chapter 1\n\nA.\n\n# Chapter 1\n\nB.\n") },
      { project: "dup" },
    );
    expect(r.plan.warnings.map((w) => w.code)).toContain("duplicate_chapter_title");
    expect(r.plan.chapters.map((c) => [c.folder, c.name])).toEqual([
      ["01-chapter-1", "chapter-1"],
      ["02-chapter-1", "chapter-1-2"],
    ]);
  });

  it("refuses an empty file and a file over the size limit, naming the limit", async () => {
    const e1 = await failure(importBook(bed.ws, { path: file("empty.txt", "") }, {}));
    expect(e1.code).toBe("invalid_input");
    expect(e1.details).toEqual({ reason: "empty" });
    const big = file("big.txt", "");
    truncateSync(big, 50 * 1024 * 1024);
    const e2 = await failure(importBook(bed.ws, { path: big }, {}));
    expect(e2.code).toBe("limit_exceeded");
    expect(e2.message).toMatch(/50\.0 MB; the import limit is 32\.0 MB/);
  });
});

describe("importBook: Markdown and EPUB", () => {
  it("reads a folder of Markdown files in name order (numbers as numbers), with footnotes and front matter kept", async () => {
    const dir = join(bed.dir, "longform");
    mkdirSync(dir);
    writeFileSync(
      join(dir, "1 - Arrival.md"),
      "---\ntitle: ignored\n---\n# Arrival\n\nShe came by *boat*.[^a]\n\n[^a]: A flat boat.\n",
    );
    writeFileSync(join(dir, "2 - Fog.md"), "The fog came.\n");
    writeFileSync(join(dir, "10 - Last.md"), "# The Last\n\nIt ended.\n");
    writeFileSync(join(dir, "notes.txt"), "not a chapter");
    const r = await importBook(bed.ws, { path: dir }, { project: "folder" });
    expect(r.plan.format).toBe("folder");
    expect(r.plan.chapters.map((c) => c.title)).toEqual(["Arrival", "Fog", "The Last"]);
    expect(chapterText("folder", "01-arrival")).toBe(
      "# Arrival\n\nShe came by *boat*.[^a]\n\n[^a]: A flat boat.\n",
    );
    expect(chapterText("folder", "02-fog")).toBe("# Fog\n\nThe fog came.\n");
  });

  it("follows a Longform index note's scene order", async () => {
    const dir = join(bed.dir, "lf");
    mkdirSync(dir);
    writeFileSync(
      join(dir, "Index.md"),
      "---\nlongform:\n  format: scenes\n  title: Salt\n  scenes:\n    - b\n    - - a\n---\n",
    );
    writeFileSync(join(dir, "a.md"), "Second.\n");
    writeFileSync(join(dir, "b.md"), "First.\n");
    const r = await importBook(bed.ws, { path: dir }, { dryRun: true });
    expect(r.plan.title).toBe("Salt");
    expect(r.plan.chapters.map((c) => c.title)).toEqual(["b", "a"]);
  });

  it("moves footnote definitions of one Markdown file to the chapter that refers to them", async () => {
    const md =
      "# Book\n\n## One\n\nA claim.[^1]\n\n## Two\n\nAnother.[^2]\n\n[^1]: First note.\n[^2]: Second note.\n";
    const r = await importBook(bed.ws, { path: file("b.md", md) }, { project: "notes" });
    expect(r.plan.frontMatter?.file).toBe("manuscript/front-matter.md");
    expect(chapterText("notes", "01-one")).toBe("# One\n\nA claim.[^1]\n\n[^1]: First note.\n");
    expect(chapterText("notes", "02-two")).toBe("# Two\n\nAnother.[^2]\n\n[^2]: Second note.\n");
  });

  it("reads an EPUB by its spine and navigation: parts become acts, metadata the project's", async () => {
    const epub = await buildEpub({
      title: "潮钟",
      author: "林岚",
      language: "zh-CN",
      parts: [
        {
          title: "第一部",
          chapters: [
            { title: "第一章", paragraphs: ["雾散了。"] },
            { title: "第二章", paragraphs: ["钟响了。"] },
          ],
        },
        { title: "第二部", chapters: [{ title: "第三章", paragraphs: ["水来了。"] }] },
      ],
    });
    const r = await importBook(bed.ws, { path: file("book.epub", epub) }, { project: "epub" });
    expect(r.plan).toMatchObject({
      format: "epub",
      title: "潮钟",
      author: "林岚",
      language: "zh",
      splitBy: "contents",
    });
    expect(r.plan.acts.map((a) => a.title)).toEqual(["第一部", "第二部"]);
    expect(r.plan.chapters.map((c) => [c.title, c.act])).toEqual([
      ["第一章", "part-1"],
      ["第二章", "part-1"],
      ["第三章", "part-2"],
    ]);
    expect(chapterText("epub", "02-chapter-2")).toBe("# 第二章\n\n钟响了。\n");
    expect(readFileSync(join(bed.ws.root, "epub", "manuscript", "front-matter.md"), "utf8")).toBe(
      "# 潮钟\n\nby 林岚\n",
    );
  });

  it("refuses an EPUB whose text is encrypted", async () => {
    const epub = await buildEpub({ title: "X", author: "Y", language: "en", parts: [], encrypted: true });
    const e = await failure(importBook(bed.ws, { path: file("drm.epub", epub) }, {}));
    expect(e.code).toBe("unsupported");
    expect(e.details).toEqual({ reason: "encrypted" });
  });
});

describe("importBook: dry run and --into", () => {
  it("--dry-run returns the plan and writes nothing", async () => {
    const before = JSON.stringify(walk(bed.ws.root));
    const r = await importBook(
      bed.ws,
      { path: file("b.md", "# Chapter 1\n\nA.\n\n# Chapter 2\n\nB.\n") },
      { dryRun: true },
    );
    expect(r.written).toBe(false);
    expect(r.plan.chapters).toHaveLength(2);
    expect(JSON.stringify(walk(bed.ws.root))).toBe(before);
  });

  it("--into appends after the existing project's last chapter, in plot order too", async () => {
    await importBook(
      bed.ws,
      { path: file("a.md", "# Chapter 1\n\nA.\n\n# Chapter 2\n\nB.\n") },
      { into: "existing" },
    );
    const r = await importBook(
      bed.ws,
      { path: file("b.md", "# Chapter 3\n\nC.\n\n# Chapter 1\n\nD.\n") },
      { into: "existing" },
    );
    expect(r.plan.into).toBe(true);
    expect(folders("existing")).toEqual(["01-chapter-1", "02-chapter-2", "03-chapter-3", "04-chapter-1"]);
    expect((await plotChapters("existing")).map((c) => c.name)).toEqual([
      "chapter-1",
      "chapter-2",
      "chapter-3",
      "chapter-1-2",
    ]);
    expect(readFileSync(join(bed.project.root, "manuscript", "index.md"), "utf8")).toBe(
      "# existing\n\n1. Chapter 1\n2. Chapter 2\n3. Chapter 3\n4. Chapter 1\n",
    );
  });

  it("--into that fails part way leaves no chapter folder and no plot row behind", async () => {
    await importBook(bed.ws, { path: file("a.md", "# One\n\nA.\n") }, { into: "existing" });
    // A file where the second new chapter's folder goes: its move fails after the first one's.
    writeFileSync(join(bed.project.root, "manuscript", "03-three"), "in the way");
    const e = await failure(
      importBook(bed.ws, { path: file("b.md", "# Two\n\nB.\n\n# Three\n\nC.\n") }, { into: "existing" }),
    );
    expect(e.code).toBe("conflict");
    expect(folders("existing")).toEqual(["01-one"]);
    expect((await plotChapters("existing")).map((c) => c.name)).toEqual(["one"]);
    expect(readdirSync(join(bed.project.root, "manuscript")).filter((n) => n.startsWith(".import-"))).toEqual(
      [],
    );
  });

  it("refuses to create over an existing project and names the choices", async () => {
    const e = await failure(
      importBook(bed.ws, { path: file("a.md", "# One\n\nA.\n") }, { project: "existing" }),
    );
    expect(e.code).toBe("conflict");
    expect(e.message).toMatch(/--into existing/);
    expect(existsSync(join(bed.ws.root, "existing", "manuscript", "01-one"))).toBe(false);
  });
});

function countHan(s: string): number {
  return s.match(/\p{Script=Han}/gu)?.length ?? 0;
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .map((e) => `${e.parentPath}/${e.name}`)
    .sort();
}
