// "Import a manuscript" on the bookshelf in a real headless Chromium against a real `nbook serve`:
// upload a DOCX, see the plan (chapters, words, the front matter and its warnings), create the
// project, land in its files with the chapters there.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDocx } from "../books/import-fixtures.js";
import { runNbook } from "../helpers.js";
import { browserMissing, launchChromium, type ServeProcess, shot, startServe } from "./browser.js";

const missing = browserMissing();
const until = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 50 });

if (missing) {
  it.skip(`import browser test skipped: ${missing}`, () => {});
} else {
  describe("import a manuscript from the bookshelf", { timeout: 90_000 }, () => {
    let dir: string;
    let ws: string;
    let server: ServeProcess;
    let browser: Browser;
    let page: Page;
    const pageErrors: string[] = [];

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "nbook-browser-import-"));
      ws = join(dir, "ws");
      expect(runNbook(["init", ws], { cwd: dir }).status).toBe(0);
      server = await startServe(ws);
      browser = await launchChromium();
      page = await (
        await browser.newContext({ viewport: { width: 1366, height: 900 }, locale: "en-GB" })
      ).newPage();
      page.setDefaultTimeout(20_000);
      page.on("pageerror", (e) => pageErrors.push(e.message));
      await page.goto(`${server.origin}/`);
      await page.getByTestId("login-token").fill(server.token);
      await page.getByTestId("login-submit").click();
      await page.getByTestId("import-book").waitFor();
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await server?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("uploads a DOCX, shows the plan, and creates the project from it", async () => {
      const docx = await buildDocx({
        title: "Salt and Bells",
        author: "Ann Marsh",
        front: ["For the bell-keepers."],
        chapters: Array.from({ length: 4 }, (_, i) => ({
          title: `Chapter ${i + 1}`,
          paragraphs: [
            [{ text: "The bell " }, { text: "rang", italics: true }, { text: ` ${i + 1} times.` }],
          ],
        })),
        footnotes: {},
      });
      await page.getByTestId("import-file").setInputFiles({
        name: "salt.docx",
        mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        buffer: docx,
      });
      await page.getByTestId("import-plan").waitFor();
      await until(() => page.getByTestId("import-chapters").locator("tbody tr").count()).toBe(4);
      expect(await page.getByTestId("import-plan").textContent()).toContain("“Salt and Bells”: 4 chapters");
      expect(await page.getByTestId("import-plan").textContent()).toContain("manuscript/front-matter.md");
      expect(await page.getByTestId("import-name").inputValue()).toBe("salt-and-bells");
      // Nothing is created before the plan is accepted.
      expect(existsSync(join(ws, "salt-and-bells"))).toBe(false);
      await shot(page, "import-01-plan");
      await page.getByTestId("import-name").fill("salt");
      await page.getByTestId("import-create").click();
      await page.waitForURL(/#\/p\/salt\/files$/);
      await page.locator('a[data-path="manuscript/04-chapter-4/index.md"]').waitFor();
      await shot(page, "import-02-created");
      expect(readFileSync(join(ws, "salt", "manuscript", "02-chapter-2", "index.md"), "utf8")).toBe(
        "# Chapter 2\n\nThe bell *rang* 2 times.\n",
      );
      expect(readFileSync(join(ws, "salt", "project.yaml"), "utf8")).toContain("author: Ann Marsh");
    });

    it("shows a file it cannot import as an error, and raised no page error", async () => {
      await page.getByTestId("nav-bookshelf").click();
      await page
        .getByTestId("import-file")
        .setInputFiles({ name: "empty.txt", mimeType: "text/plain", buffer: Buffer.alloc(0) });
      await until(() => page.getByTestId("import-book").getByRole("alert").textContent()).toContain(
        "empty.txt is empty",
      );
      expect(pageErrors).toEqual([]);
    });
  });
}
