// Inline AI in a real headless Chromium against `nbook serve --script`: a passage selected in the
// prose editor is sent with "Shorten"; the scripted inline editor's three alternatives appear as
// diffs; one is edited by hand and accepted, which saves the file; the Changes screen reverts that
// save and the editor shows the old text again. Discard leaves the file alone.
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
const LINE =
  "The fog had burned off by noon, which it never did in Saltmarsh, and Mira was on the causeway with";
const ALTERNATIVES = [
  "The fog had gone by noon, and Mira was on the causeway with",
  "By noon the fog was gone, and Mira was on the causeway with",
  "Fog gone by noon; Mira on the causeway with",
];
const MINE = "By noon the fog was gone (for once), and Mira was on the causeway with";
const reply = (alts: string[]) => alts.map((a) => `<alternative>${a}</alternative>`).join("\n");

// Two inline requests: the one accepted, then one discarded.
const SCRIPT = JSON.stringify({
  turns: [
    {
      text: reply(ALTERNATIVES),
      toolCalls: [{ name: "report_result", input: { result: "Three shorter versions." } }],
      expect: { lastUser: "Shorten the passage" },
    },
    {
      text: reply(["Rewritten once.", "Rewritten twice."]),
      toolCalls: [{ name: "report_result", input: { result: "Two rewrites." } }],
      expect: { lastUser: "Rewrite the passage" },
    },
  ],
});

const missing = browserMissing();
const until = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 50 });

if (missing) {
  it.skip(`inline AI browser test skipped: ${missing}`, () => {});
} else {
  describe("inline AI", { timeout: 90_000 }, () => {
    let wb: SampleWorkbench;
    let ws: string;
    let server: ServeProcess;
    let page: Page;
    let pageErrors: string[];
    const chapterPath = () => join(ws, "tide", CHAPTER);

    beforeAll(async () => {
      wb = await sampleWorkbench({
        prefix: "browser-inline",
        serveArgs: (dir) => {
          writeFileSync(join(dir, "script.json"), SCRIPT);
          return ["--script", join(dir, "script.json")];
        },
      });
      ({ ws, server, page, pageErrors } = wb);
      await page.goto(`${server.origin}/#/p/tide/files/${encodeURIComponent(CHAPTER)}`);
      await page.getByTestId("editor").waitFor();
    }, 60_000);

    afterAll(async () => {
      await wb?.close();
    });

    it("shortens a selected passage: three alternatives as diffs, one edited by hand and accepted, then saved", async () => {
      const original = readFileSync(chapterPath(), "utf8");
      expect(original).toContain(LINE);
      expect(await page.getByTestId("inline-panel").count()).toBe(0);
      // The search box opens the chapter with the passage's line selected.
      await page.getByTestId("search-input").fill('"burned off"');
      await page.getByTestId("search-input").press("Enter");
      await page.getByTestId("search-hit").first().click();
      const editor = page.getByTestId("editor");
      await until(() => editorSelection(editor)).toBe(LINE);

      await page.getByTestId("inline-shorten").click();
      const alternatives = page.getByTestId("inline-alternative");
      await until(() => page.getByTestId("inline-accept").count()).toBe(3);
      expect(await page.getByTestId("inline-status").textContent()).toMatch(/^Pick one/);
      expect(await alternatives.nth(0).locator("ins").allTextContents()).toEqual(
        expect.arrayContaining([expect.stringContaining("gone")]),
      );
      expect(await alternatives.nth(0).locator("del").allTextContents()).toEqual(
        expect.arrayContaining([expect.stringContaining("burned")]),
      );
      // Nothing is written until one is accepted.
      expect(readFileSync(chapterPath(), "utf8")).toBe(original);
      expect(severe(await axeFindings(page), "inline-ai")).toEqual([]);
      await shot(page, "inline-01-alternatives");

      // Merge by hand: the second alternative, edited, is what is accepted.
      await alternatives.nth(1).getByTestId("inline-draft").fill(MINE);
      await until(async () =>
        (await alternatives.nth(1).locator("ins").allTextContents()).join(" "),
      ).toContain("(for once)");
      await alternatives.nth(1).getByTestId("inline-accept").click();
      await until(() => page.getByTestId("save-status").textContent()).toBe("Saved");
      const saved = original.replace(LINE, MINE);
      expect(readFileSync(chapterPath(), "utf8")).toBe(saved);
      expect(await editorText(editor)).toBe(saved);
      // The alternatives are gone; the accepted text is selected (ready to be asked about again).
      await until(() => page.getByTestId("inline-alternative").count()).toBe(0);
      expect(await editorSelection(editor)).toBe(MINE);
      await shot(page, "inline-02-accepted");
    });

    it("discards alternatives without touching the file", async () => {
      const before = readFileSync(chapterPath(), "utf8");
      const editor = page.getByTestId("editor");
      await editor.click();
      await page.keyboard.press("Control+Home");
      await page.keyboard.press("Shift+End");
      await until(() => editorSelection(editor)).toBe("# Chapter 1 — The Drowned Bell");
      await page.getByTestId("inline-rewrite").click();
      await until(() => page.getByTestId("inline-accept").count()).toBe(2);
      await page.getByTestId("inline-discard").click();
      await until(() => page.getByTestId("inline-alternative").count()).toBe(0);
      expect(readFileSync(chapterPath(), "utf8")).toBe(before);
      expect(await editorText(editor)).toBe(before);
    });

    it("the accepted change is in history as yours: the Changes screen reverts it and the editor shows the old text", async () => {
      await page.getByTestId("nav-changes").click();
      const mine = page.locator('[data-testid="change"][data-actor="user"]');
      await until(() => mine.count()).toBe(1);
      await mine.click();
      const diff = page.getByTestId("change-diff");
      await until(() => diff.locator(".diff-add").allTextContents()).toEqual(
        expect.arrayContaining([expect.stringContaining(MINE)]),
      );
      await page.getByTestId("revert").click();
      await until(() => page.getByTestId("revert-done").textContent()).toMatch(/^Reverted/);
      expect(readFileSync(chapterPath(), "utf8")).toContain(LINE);

      await page.getByTestId("nav-files").click();
      await page.locator(`a[data-path="${CHAPTER}"]`).click();
      const editor = page.getByTestId("editor");
      await until(() => editorText(editor)).toContain(LINE);
      expect(await editorText(editor)).not.toContain(MINE);
      await shot(page, "inline-03-reverted");
      expect(pageErrors).toEqual([]);
    });
  });
}
