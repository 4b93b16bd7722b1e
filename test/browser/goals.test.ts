// Goals in headless Chromium against a real `nbook serve`: a daily target and a chapter target set
// on the Goals screen, words written, the goals met; the daily log splits them by who wrote them.
// axe-core finds no serious or critical violation in English or Chinese.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runNbook } from "../helpers.js";
import {
  axeFindings,
  browserMissing,
  launchChromium,
  type ServeProcess,
  severe,
  shot,
  startServe,
} from "./browser.js";

const missing = browserMissing();
const until = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 50 });
const CHAPTER = "manuscript/01-the-drowned-bell/index.md";

if (missing) {
  it.skip(`goals browser tests skipped: ${missing}`, () => {});
} else {
  describe("goals in Chromium", { timeout: 90_000 }, () => {
    let dir: string;
    let server: ServeProcess;
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "nbook-goals-"));
      const ws = join(dir, "ws");
      expect(runNbook(["init", ws], { cwd: dir }).status).toBe(0);
      expect(runNbook(["project", "create", "tide", "--sample"], { cwd: ws }).status).toBe(0);
      server = await startServe(ws);
      browser = await launchChromium();
      page = await (await browser.newContext({ locale: "en-GB" })).newPage();
      page.setDefaultTimeout(20_000);
      await page.goto(server.loginUrl);
      await page.getByTestId("project-tide").waitFor();
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await server?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("sets a daily and a chapter target, writes, and shows both goals met", async () => {
      await page.goto(`${server.origin}/#/p/tide/goals`);
      const today = page.getByTestId("goal-today");
      await until(() => today.getAttribute("data-met")).toBe("false");
      await page.getByLabel("Words per day").fill("8");
      const words = Number(
        await page.getByTestId("goal-chapter").first().locator("td").first().textContent(),
      );
      await page.getByTestId("goal-chapter-1").fill(String(words + 5));
      await page.getByTestId("goals-save").click();
      await until(() => today.textContent()).toContain("0 of 8 words");
      expect(await page.getByTestId("goal-chapter").first().getAttribute("data-met")).toBe("false");

      // The author writes eight words into chapter 1 (a workbench save, as the editor makes it).
      const api = `${server.origin}/api/projects/tide/files`;
      const file = (await (
        await page.request.get(`${api}/read?path=${encodeURIComponent(CHAPTER)}`)
      ).json()) as {
        text: string;
        version: string;
      };
      const saved = await page.request.put(`${api}/write`, {
        headers: { origin: server.origin },
        data: {
          path: CHAPTER,
          content: `${file.text}\nThe bell rang twice more, then never again.\n`,
          baseVersion: file.version,
        },
      });
      expect(saved.status()).toBe(200);

      await page.reload();
      await until(() => today.getAttribute("data-met")).toBe("true");
      expect(await today.textContent()).toContain("Goal met");
      await until(() => page.getByTestId("goal-chapter").first().getAttribute("data-met")).toBe("true");
      const row = page.getByTestId("goal-log").locator("tbody tr").first();
      expect(await row.locator("td").first().textContent()).toBe("+8 / −0");
      await shot(page, "goals-en");
      expect(severe(await axeFindings(page), "goals (en)")).toEqual([]);

      await page.getByTestId("lang").selectOption("zh");
      await until(() => today.textContent()).toContain("已达成");
      await shot(page, "goals-zh");
      expect(severe(await axeFindings(page), "goals (zh)")).toEqual([]);
    });
  });
}
