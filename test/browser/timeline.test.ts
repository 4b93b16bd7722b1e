// The plot's timeline in headless Chromium against a real `nbook serve` on the sample: scenes at
// their story times beside their places in the book, world events between them, narrowed to one
// character, in English and Chinese, with no serious or critical axe-core violation.
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

if (missing) {
  it.skip(`timeline browser tests skipped: ${missing}`, () => {});
} else {
  describe("plot timeline in Chromium", { timeout: 90_000 }, () => {
    let dir: string;
    let project: string;
    let server: ServeProcess;
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "nbook-timeline-"));
      const ws = join(dir, "ws");
      expect(runNbook(["init", ws], { cwd: dir }).status).toBe(0);
      expect(runNbook(["project", "create", "tide", "--sample"], { cwd: ws }).status).toBe(0);
      project = join(ws, "tide");
      server = await startServe(ws);
      browser = await launchChromium();
      const context = await browser.newContext({ viewport: { width: 1366, height: 800 }, locale: "en-GB" });
      page = await context.newPage();
      page.setDefaultTimeout(20_000);
      await page.goto(server.loginUrl);
      await page.getByTestId("project-tide").waitFor();
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await server?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("shows a scene at its story time, with its place in the book, among world events", async () => {
      // The scene's story time as the plot tools give it: the sample's first scene.
      const ctx = runNbook(["tool", "get_story_scene_context", "--input", '{"sceneId":1}', "--json"], {
        cwd: project,
      });
      expect(ctx.status, ctx.stderr).toBe(0);
      const time = /"startTime":"([^"]+)"/.exec(ctx.stdout)![1]!;
      const timed = { id: 1, title: "The bell rings at noon", worldAnchor: { startTime: time } };

      await page.goto(`${server.origin}/#/p/tide/plot`);
      await page.getByTestId("tab-timeline").click();
      const row = page.locator(`[data-testid="timeline-scene"][data-id="${timed.id}"]`);
      await until(() => row.locator("time").textContent()).toBe(timed.worldAnchor.startTime);
      expect(await row.textContent()).toContain(timed.title);
      expect(await row.textContent()).toMatch(/#\d+ in the book/);
      await until(() => page.getByTestId("timeline-event").count()).toBeGreaterThan(0);
      await shot(page, "timeline-en");
      expect(severe(await axeFindings(page), "timeline (en)")).toEqual([]);
    });

    it("narrows to one character, and reads in Chinese", async () => {
      const all = await page.getByTestId("timeline-scene").count();
      await page.getByTestId("timeline-filter").selectOption("mira");
      await until(async () => (await page.getByTestId("timeline-scene").count()) <= all).toBe(true);
      await until(() => page.getByTestId("timeline-filter").inputValue()).toBe("mira");
      await page.getByTestId("lang").selectOption("zh");
      await until(() => page.getByTestId("tab-timeline").textContent()).toBe("时间线");
      await until(() => page.getByTestId("timeline-scene").first().textContent()).toContain("书中第");
      await shot(page, "timeline-zh");
      expect(severe(await axeFindings(page), "timeline (zh)")).toEqual([]);
    });
  });
}
