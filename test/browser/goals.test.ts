// Goals in headless Chromium against a real `nbook serve`: a daily target and a chapter target set
// on the Goals screen, words written, the goals met; the daily log splits them by who wrote them.
// axe-core finds no serious or critical violation in English or Chinese.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  axeFindings,
  browserMissing,
  type SampleWorkbench,
  type ServeProcess,
  sampleWorkbench,
  severe,
  shot,
} from "./browser.js";

const missing = browserMissing();
const until = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 50 });
const CHAPTER = "manuscript/01-the-drowned-bell/index.md";

if (missing) {
  it.skip(`goals browser tests skipped: ${missing}`, () => {});
} else {
  describe("goals in Chromium", { timeout: 90_000 }, () => {
    let wb: SampleWorkbench;
    let server: ServeProcess;
    let page: Page;

    beforeAll(async () => {
      wb = await sampleWorkbench({ prefix: "goals", viewport: { width: 1280, height: 720 } });
      ({ server, page } = wb);
    }, 60_000);

    afterAll(async () => {
      await wb?.close();
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
