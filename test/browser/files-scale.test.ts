import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runNbook } from "../helpers.js";
import {
  browserMissing,
  editorSelection,
  editorText,
  launchChromium,
  type ServeProcess,
  shot,
  startServe,
} from "./browser.js";

const missing = browserMissing();
const until = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 50 });
const CHAPTERS = 450;
const chapter = (i: number) => `manuscript/ch-${String(i).padStart(4, "0")}/index.md`;

if (missing) {
  it.skip(`files screen browser tests skipped: ${missing}`, () => {});
} else {
  describe("the files screen of a long novel, in Chromium", { timeout: 120_000 }, () => {
    let dir: string;
    let ws: string;
    let server: ServeProcess;
    let browser: Browser;
    let page: Page;
    const requests: string[] = [];

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "nbook-browser-files-"));
      ws = join(dir, "ws");
      expect(runNbook(["init", ws], { cwd: dir }).status).toBe(0);
      expect(runNbook(["project", "create", "long", "--workspace", ws], { cwd: dir }).status).toBe(0);
      for (let i = 1; i <= CHAPTERS; i++) {
        mkdirSync(join(ws, "long", chapter(i), ".."), { recursive: true });
        const extra = i === 321 ? "\n\n林岚走进长安城的雾里。\n" : "";
        writeFileSync(join(ws, "long", chapter(i)), `# Chapter ${i}\n\nThe bell rang ${i} times.${extra}\n`);
      }
      server = await startServe(ws);
      browser = await launchChromium();
      page = await (await browser.newContext({ viewport: { width: 1366, height: 800 } })).newPage();
      page.setDefaultTimeout(20_000);
      page.on("request", (r) => requests.push(r.url()));
      await page.goto(`${server.origin}/`);
      await page.getByTestId("login-token").fill(server.token);
      await page.getByTestId("login-submit").click();
      await page.getByTestId("create-project").waitFor();
    }, 90_000);

    afterAll(async () => {
      await browser?.close();
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it("renders a folder's first entries and says how many more there are; more are shown on request", async () => {
      await page.goto(`${server.origin}/#/p/long/files`);
      await page.locator(`a[data-path="${chapter(1)}"]`).waitFor();
      expect(await page.locator(`a[data-path="${chapter(200)}"]`).count()).toBe(1);
      expect(await page.locator(`a[data-path="${chapter(201)}"]`).count()).toBe(0);
      const more = page.getByTestId("tree-more");
      expect(await more.textContent()).toBe(`Show 200 more (${CHAPTERS + 1 - 200} not shown)`);
      await more.click();
      await page.locator(`a[data-path="${chapter(400)}"]`).waitFor();
      expect(await page.getByTestId("tree-more").textContent()).toBe(`Show 51 more (51 not shown)`);
    });

    it("a write elsewhere updates the chapter's word count from the event, without fetching the tree again", async () => {
      const link = page.locator(`a[data-path="${chapter(3)}"]`);
      expect(await link.getByTestId("chapter-words").textContent()).toBe("5");
      const before = requests.filter((u) => u.includes("/files/tree")).length;
      const read = await page
        .context()
        .request.get(`${server.origin}/api/projects/long/files/read?path=${encodeURIComponent(chapter(3))}`);
      const { version } = (await read.json()) as { version: string };
      const ok = await page.context().request.put(`${server.origin}/api/projects/long/files/write`, {
        headers: { origin: server.origin },
        data: {
          path: chapter(3),
          content: "# Three\n\nOne two three four five six.\n",
          baseVersion: version,
        },
      });
      expect(ok.status()).toBe(200);
      await until(() => link.getByTestId("chapter-words").textContent()).toBe("6");
      expect(requests.filter((u) => u.includes("/files/tree")).length).toBe(before);
    });

    it("the search box finds a Chinese phrase and opens the chapter at the line", async () => {
      await page.getByTestId("search-input").fill("长安城");
      await page.getByTestId("search-input").press("Enter");
      const hit = page.getByTestId("search-hit");
      await until(() => hit.count()).toBe(1);
      expect(await hit.textContent()).toContain(`${chapter(321)}:5`);
      expect(await hit.locator("mark").textContent()).toBe("长安城");
      await shot(page, "files-search");
      await hit.click();
      const editor = page.getByTestId("editor");
      await until(() => editorText(editor)).toContain("林岚");
      await until(() => editorSelection(editor)).toBe("林岚走进长安城的雾里。");
    });
  });
}
