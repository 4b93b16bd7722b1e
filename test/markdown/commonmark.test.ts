import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderMarkdown } from "../../src/markdown/index.js";
import { unsafeParts } from "./sanitised.js";
import { readSpecExamples } from "./spec-examples.js";

const examples = readSpecExamples(join(import.meta.dirname, "../fixtures/commonmark/spec.txt"));
// Raw HTML is switched off by design (a chapter's markup shows as text, never runs), so the two
// sections that are about passing HTML through are not claimed; every other section is.
const UNCLAIMED = new Set(["HTML blocks", "Raw HTML"]);
// The conformance run lets every safe image through; the preview's default shows only inline pictures.
const asSpec = (md: string) => renderMarkdown(md, { image: (src) => src });

describe("src/markdown against the CommonMark spec 0.31.2", () => {
  it("has the spec's examples", () => {
    expect(examples).toHaveLength(655);
  });

  it("passes at least 95% of the examples in the sections it claims", () => {
    const claimed = examples.filter((e) => !UNCLAIMED.has(e.section));
    const failed = claimed.filter((e) => asSpec(e.markdown) !== e.html).map((e) => e.number);
    const rate = (claimed.length - failed.length) / claimed.length;
    console.log(
      `CommonMark: ${claimed.length - failed.length}/${claimed.length} claimed examples pass (${(rate * 100).toFixed(1)}%); failing: ${failed.join(", ")}`,
    );
    expect(rate).toBeGreaterThanOrEqual(0.95);
  });

  it("renders no unsanitised HTML from any example, with either image policy", () => {
    for (const e of examples) {
      for (const html of [renderMarkdown(e.markdown), asSpec(e.markdown)]) {
        expect({ example: e.number, problems: unsafeParts(html) }).toEqual({
          example: e.number,
          problems: [],
        });
      }
    }
  });
});

describe("src/markdown sanitising", () => {
  const attacks = [
    "[x](javascript:alert(1))",
    "[x](JAVASCRIPT:alert(1))",
    "[x](java\u0000script:alert(1))",
    "[x](&#106;avascript:alert(1))",
    "[x](vbscript:msgbox(1))",
    "[x](data:text/html;base64,PHNjcmlwdD4=)",
    "![x](data:image/svg+xml;base64,PHN2Zz4=)",
    "![x](javascript:alert(1))",
    "<javascript:alert(1)>",
    "[x]: javascript:alert(1)\n\n[x]",
    '<img src=x onerror="alert(1)">',
    "<script>alert(1)</script>",
    '<a href="javascript:alert(1)">x</a>',
    "<!-- c --><?php x ?><![CDATA[x]]>",
    '[x](y "t\\" onmouseover=\\"alert(1))',
    '```js" onload="x\nbody\n```',
    "[^1]\n\n[^1]: <b onclick=x>n</b>",
  ];
  for (const md of attacks) {
    it(`keeps ${JSON.stringify(md)} inert`, () => {
      const html = renderMarkdown(md);
      expect(unsafeParts(html)).toEqual([]);
      // Text may mention a scheme; only an attribute carrying one, or a live tag, would be a hole.
      expect(html).not.toMatch(/(href|src)="\s*(javascript|vbscript|data:text)/i);
      expect(html).not.toMatch(/<(script|img|b|a) [^>]*on\w+=/i);
    });
  }

  it("keeps web links and shows a remote image as its alt text by default", () => {
    expect(renderMarkdown("[a](https://example.org/x)")).toBe(
      '<p><a href="https://example.org/x">a</a></p>\n',
    );
    expect(renderMarkdown("![the bell](https://example.org/b.png)")).toBe(
      '<p><span class="md-image">the bell</span></p>\n',
    );
    expect(renderMarkdown("[a](/b)", { newWindowLinks: true })).toBe(
      '<p><a href="/b" target="_blank" rel="noopener noreferrer">a</a></p>\n',
    );
  });

  it("keeps hard line breaks, footnotes with a per-document prefix, and scene-break ornaments", () => {
    expect(renderMarkdown("one  \ntwo\\\nthree")).toBe("<p>one<br />\ntwo<br />\nthree</p>\n");
    const fn = renderMarkdown("a[^n]\n\n[^n]: note", { docId: "ch3" });
    expect(fn).toContain('href="#fn-ch3-1"');
    expect(fn).toContain('id="fn-ch3-1"');
    for (const b of ["＊＊＊", "◇◇◇", "⁂", "* * *"])
      expect(renderMarkdown(`a\n\n${b}\n\nb`)).toContain("<hr />");
  });
});

describe("src/markdown for a book", () => {
  it("keeps web and mail links and turns project-file and anchor links into their text", () => {
    const html = renderMarkdown(
      "[web](https://a.org) [file](../lorebook/mira.md) [mail](mailto:a@b.c) [here](#x)",
      {
        webLinksOnly: true,
      },
    );
    expect(html).toBe('<p><a href="https://a.org">web</a> file <a href="mailto:a@b.c">mail</a> here</p>\n');
  });
});
