// The prose editor (CodeMirror) in a real headless Chromium against a real `nbook serve`: Chinese
// typed as text and through an IME composition is saved exactly; Ctrl+B wraps a selection in `**`
// and Ctrl+Alt+2 makes a heading; the word count follows the typing (each CJK character a word);
// the chapter's heading is its title in the header; focus mode hides the tree and the chrome; the
// preview keeps a verse's hard line breaks.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  axeFindings,
  browserMissing,
  editorSelection,
  editorText,
  type SampleWorkbench,
  type ServeProcess,
  sampleWorkbench,
  severe,
  shot,
} from "./browser.js";

const CHAPTER = "manuscript/01-the-drowned-bell/index.md";

const missing = browserMissing();
const until = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 50 });

if (missing) {
  it.skip(`editor browser test skipped: ${missing}`, () => {});
} else {
  describe("the prose editor", { timeout: 90_000 }, () => {
    let wb: SampleWorkbench;
    let ws: string;
    let server: ServeProcess;
    let page: Page;
    let pageErrors: string[];
    const chapterPath = () => join(ws, "tide", CHAPTER);
    const words = async () =>
      Number((await page.getByTestId("word-count").textContent())?.replace(/\D/g, ""));

    beforeAll(async () => {
      wb = await sampleWorkbench({ prefix: "browser-editor" });
      ({ ws, server, page, pageErrors } = wb);
      await page.goto(`${server.origin}/#/p/tide/files/${encodeURIComponent(CHAPTER)}`);
      await page.getByTestId("editor").waitFor();
    }, 60_000);

    afterAll(async () => {
      await wb?.close();
    });

    it("shows the chapter's heading as its title, in a reading font with spell check on", async () => {
      const editor = page.getByTestId("editor");
      await until(() => editorText(editor)).toBe(readFileSync(chapterPath(), "utf8"));
      expect(await page.getByTestId("chapter-title").textContent()).toBe("Chapter 1 — The Drowned Bell");
      expect(await editor.getAttribute("spellcheck")).toBe("true");
      expect(await editor.getAttribute("contenteditable")).toBe("true");
      const font = await editor.evaluate(
        (el) => el.ownerDocument.defaultView!.getComputedStyle(el).fontFamily,
      );
      expect(font).not.toMatch(/mono/i);
      expect(severe(await axeFindings(page), "editor")).toEqual([]);
      await shot(page, "editor-01-chapter");
    });

    it("saves Chinese typed as text and through an IME composition exactly, counting each character", async () => {
      const editor = page.getByTestId("editor");
      const before = readFileSync(chapterPath(), "utf8");
      const wordsBefore = await words();
      await editor.click();
      await page.keyboard.press("Control+End");
      await page.keyboard.insertText("林岚走进长安城。");
      await until(words).toBe(wordsBefore + 7);
      // A pinyin input method: the composition shows "lan", then 雾 is committed by the IME.
      const cdp = await page.context().newCDPSession(page);
      await cdp.send("Input.imeSetComposition", { text: "wu", selectionStart: 2, selectionEnd: 2 });
      await cdp.send("Input.imeSetComposition", { text: "雾", selectionStart: 1, selectionEnd: 1 });
      await cdp.send("Input.insertText", { text: "雾" });
      await cdp.send("Input.imeSetComposition", { text: "san", selectionStart: 3, selectionEnd: 3 });
      await cdp.send("Input.insertText", { text: "散了" });
      const mine = `${before}林岚走进长安城。雾散了`;
      await until(() => editorText(editor)).toBe(mine);
      await until(words).toBe(wordsBefore + 10);
      expect(await page.getByTestId("save-status").textContent()).toBe("Unsaved changes");
      await page.keyboard.press("Control+s");
      await until(() => page.getByTestId("save-status").textContent()).toBe("Saved");
      expect(readFileSync(chapterPath(), "utf8")).toBe(mine);
      await shot(page, "editor-02-chinese");
    });

    it("wraps a selection in ** with Ctrl+B, and makes a heading with Ctrl+Alt+2", async () => {
      const editor = page.getByTestId("editor");
      const before = readFileSync(chapterPath(), "utf8");
      await editor.click();
      await page.keyboard.press("Control+End");
      await page.keyboard.press("Enter");
      await page.keyboard.insertText("The bell rang");
      for (let i = 0; i < 4; i++) await page.keyboard.press("Shift+ArrowLeft");
      await until(() => editorSelection(editor)).toBe("rang");
      await page.keyboard.press("Control+b");
      await until(() => editorText(editor)).toBe(`${before}\nThe bell **rang**`);
      expect(await editorSelection(editor)).toBe("rang");
      await page.keyboard.press("Control+Alt+2");
      await until(() => editorText(editor)).toBe(`${before}\n## The bell **rang**`);
      await page.getByTestId("save").click();
      await until(() => page.getByTestId("save-status").textContent()).toBe("Saved");
      expect(readFileSync(chapterPath(), "utf8")).toBe(`${before}\n## The bell **rang**`);
    });

    it("focus mode hides the tree and the chrome, and Escape brings them back", async () => {
      const tree = page.getByRole("complementary", { name: "Files" });
      expect(await tree.isVisible()).toBe(true);
      await page.getByTestId("focus-mode").click();
      await until(() => tree.isVisible()).toBe(false);
      expect(await page.locator("nav.activity").isVisible()).toBe(false);
      expect(await page.getByTestId("focus-mode").getAttribute("aria-pressed")).toBe("true");
      expect(await page.getByTestId("editor").isVisible()).toBe(true);
      await shot(page, "editor-03-focus");
      await page.keyboard.press("Escape");
      await until(() => tree.isVisible()).toBe(true);
      expect(await page.locator("nav.activity").isVisible()).toBe(true);
      expect(pageErrors).toEqual([]);
    });

    it("previews verse with its hard line breaks (two trailing spaces or a backslash), as the export prints it", async () => {
      const verse = "lorebook/verse.md";
      writeFileSync(
        join(ws, "tide", verse),
        "# The Ferryman's Song\n\nThe bell rang once,  \nthe water rose,\\\nand no one crossed.\n\nA second stanza.\n",
      );
      await page.goto(`${server.origin}/#/p/tide/files/${encodeURIComponent(verse)}`);
      await until(() => editorText(page.getByTestId("editor"))).toContain("no one crossed");
      await page.getByTestId("preview-tab").click();
      const stanza = page.getByTestId("rendered").locator("p").first();
      await until(() => stanza.locator("br").count()).toBe(2);
      // biome-ignore lint/performance/useDomNodeTextContent: the lines as rendered (each <br> a line break) are what is checked
      expect(await stanza.innerText()).toBe("The bell rang once,\nthe water rose,\nand no one crossed.");
      expect(await page.getByTestId("rendered").locator("p").count()).toBe(2);
      await shot(page, "editor-04-verse-preview");
      await page.getByRole("tab", { name: "Edit" }).click();
    });
  });
}
