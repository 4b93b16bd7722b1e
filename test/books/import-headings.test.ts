import iconv from "iconv-lite";
import { describe, expect, it } from "vitest";
import { decodeManuscript } from "../../src/books/import/decode.js";
import { headingKind } from "../../src/books/import/headings.js";
import { sceneBreak } from "../../src/books/import/scene-breaks.js";
import { splitBook } from "../../src/books/import/split.js";

describe("chapter headings", () => {
  it.each([
    ["Chapter 1", "chapter"],
    ["CHAPTER ONE", "chapter"],
    ["Chapter Twenty-One", "chapter"],
    ["Chapter XIV: The Ferry", "chapter"],
    ["Prologue", "chapter"],
    ["EPILOGUE", "chapter"],
    ["Part II", "part"],
    ["Book One", "part"],
    ["第一章", "chapter"],
    ["第1章 雾", "chapter"],
    ["第一百二十回 尾声将近", "chapter"],
    ["序章", "chapter"],
    ["楔子", "chapter"],
    ["尾声", "chapter"],
    ["番外一 旧事", "chapter"],
    ["第一卷 潮声", "part"],
    ["第一話", "chapter"],
    ["## Chapter 3", "chapter"],
  ])("%s is a %s heading", (line, kind) => {
    expect(headingKind(line)).toBe(kind);
  });

  it.each([
    "Chapter one of her life was over, she thought.",
    "Part of the problem was the fog.",
    "The chapter ended.",
    "第一章的故事很长，林岚一直在讲，讲了很久很久，直到天黑，直到钟响了三次，直到所有人都睡着了，还没讲完，她又接着讲了下去，一直讲到第二天早上太阳出来的时候。",
    "序幕拉开了，大家都很高兴。但是没有人知道，这场戏会演多久。",
  ])("%s is prose, not a heading", (line) => {
    expect(headingKind(line)).toBeNull();
  });

  it("keeps Markdown scene breaks as * * * and CJK ornaments as written", () => {
    expect(["***", "* * *", "---", "#", "\\* \\* \\*"].map(sceneBreak)).toEqual(Array(5).fill("* * *"));
    expect(sceneBreak("＊＊＊")).toBe("＊＊＊");
    expect(sceneBreak("◇◇◇")).toBe("◇◇◇");
    expect(sceneBreak("Three stars")).toBeNull();
  });

  it("takes a lone top heading over deeper ones for the book's title, not a chapter", () => {
    const book = splitBook("# The Book\n\nBy me.\n\n## One\n\nA.\n\n## Two\n\nB.\n");
    expect(book.by).toBe("headings");
    expect(book.front).toBe("# The Book\n\nBy me.");
    expect(book.units.map((u) => u.title)).toEqual(["One", "Two"]);
  });
});

describe("decoding", () => {
  it("detects Big5 and GB18030 text, and reads UTF-8 with a byte-order mark", () => {
    const trad = "第一章 霧\n林嵐聽見第三口鐘響了。這個時候，天上沒有雲，也沒有風。";
    expect(decodeManuscript(iconv.encode(trad, "big5"))).toEqual({ text: trad, charset: "big5-hkscs" });
    const simp = "第一章 雾\n林岚听见第三口钟响了。这个时候，天上没有云，也没有风。";
    expect(decodeManuscript(iconv.encode(simp, "gb18030"))).toEqual({ text: simp, charset: "gb18030" });
    expect(decodeManuscript(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(simp)]))).toEqual({
      text: simp,
      charset: "utf-8",
    });
  });
});

describe("HTML to Markdown", () => {
  it("turns mammoth's and EPUB 3's footnotes into Markdown footnotes, italic and bold kept", async () => {
    const { htmlToMarkdown } = await import("../../src/books/import/formats/html-to-markdown.js");
    const docx = htmlToMarkdown(
      '<p>A <em>b</em> <strong>c</strong>.<sup><a href="#footnote-1" id="footnote-ref-1">[1]</a></sup></p><ol><li id="footnote-1"><p>Note one. <a href="#footnote-ref-1">↑</a></p></li></ol>',
    );
    expect(docx.markdown).toBe("A *b* **c**.[^1]");
    expect([...docx.footnotes]).toEqual([["1", "Note one."]]);
    const epub = htmlToMarkdown(
      '<p>Rang<a epub:type="noteref" href="#n1">1</a>.</p><aside epub:type="footnote" id="n1"><p>Twice.</p></aside>',
    );
    expect(epub.markdown).toBe("Rang[^n1].");
    expect([...epub.footnotes]).toEqual([["n1", "Twice."]]);
  });
});
