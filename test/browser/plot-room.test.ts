// The plot screen in headless Chromium: non-title fields edited in place (a chapter's brief, a
// scene's fields, a promise's importance, a decision's question) through the plot tools; then the timeline against a real `nbook serve` on the sample: scenes at
// their story times beside their places in the book, world events between them, narrowed to one
// character, in English and Chinese, with no serious or critical axe-core violation.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runNbook } from "../helpers.js";
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

if (missing) {
  it.skip(`timeline browser tests skipped: ${missing}`, () => {});
} else {
  describe("plot timeline in Chromium", { timeout: 90_000 }, () => {
    let wb: SampleWorkbench;
    let project: string;
    let server: ServeProcess;
    let page: Page;

    beforeAll(async () => {
      wb = await sampleWorkbench({ prefix: "timeline", viewport: { width: 1366, height: 800 } });
      ({ project, server, page } = wb);
    }, 60_000);

    afterAll(async () => {
      await wb?.close();
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

    it("edits a chapter's brief, a scene's fields, a promise and a decision in place", async () => {
      const nbookJson = (args: string[]) => {
        const r = runNbook(args, { cwd: project });
        expect(r.status, r.stderr).toBe(0);
        return JSON.parse(r.stdout) as Record<string, unknown>;
      };
      await page.getByTestId("lang").selectOption("en");
      await page.goto(`${server.origin}/#/p/tide/plot/1`);
      await page.getByTestId("tab-chapter").click();
      await page.getByTestId("chapter-fields").locator("summary").click();
      const brief = page.getByTestId("fields-chapterId-1");
      await brief.locator('textarea[name="goal"]').fill("Mira hears the bell and says nothing.");
      await brief.locator('textarea[name="hintOnly"]').fill("");
      await brief.getByRole("button", { name: "Save" }).click();
      await until(async () => {
        const c = nbookJson(["plot", "chapter", "1", "--json"]).chapter as { brief: Record<string, unknown> };
        return [c.brief.goal, c.brief.hintOnly];
      }).toEqual(["Mira hears the bell and says nothing.", null]);

      await page.getByTestId("details-sceneId-1").click();
      const scene = page.getByTestId("fields-sceneId-1");
      await scene.locator('select[name="pacingRole"]').selectOption("climax");
      await scene.locator('textarea[name="summary"]').fill("The bell rings; the sky stays clear.");
      await scene.getByRole("button", { name: "Save" }).click();
      await until(() => scene.getByRole("status").textContent()).toBe("Saved.");
      const ctx = nbookJson(["tool", "get_story_scene_context", "--input", '{"sceneId":1}', "--json"]);
      expect(JSON.stringify(ctx)).toContain("The bell rings; the sky stays clear.");
      expect(JSON.stringify(ctx)).toContain('"pacingRole":"climax"');
      await shot(page, "plot-fields-chapter");
      expect(severe(await axeFindings(page), "plot chapter fields")).toEqual([]);

      await page.getByTestId("tab-promises").click();
      await page.getByTestId("importance-1").selectOption("low");
      await until(() => {
        const r = runNbook(["tool", "get_story_promise", "--input", '{"promiseId":1}', "--json"], {
          cwd: project,
        });
        return /"importance":"(\w+)"/.exec(r.stdout)?.[1];
      }).toBe("low");
      await page.getByTestId("tab-decisions").click();
      const decision = page.getByTestId("fields-decisionId-1");
      await decision.locator('textarea[name="question"]').fill("Does Mira ever learn who cut the page?");
      await decision.getByRole("button", { name: "Save" }).click();
      await until(() => {
        const r = runNbook(["tool", "get_story_decision", "--input", '{"decisionId":1}', "--json"], {
          cwd: project,
        });
        return r.stdout.includes("Does Mira ever learn who cut the page?");
      }).toBe(true);
      const history = runNbook(["history", "--json", "--limit", "4"], { cwd: project });
      expect((JSON.parse(history.stdout) as { tool: string }[]).map((h) => h.tool)).toEqual([
        "save_story_decision",
        "save_story_promise",
        "save_story_scene",
        "save_story_chapter",
      ]);
    });
  });
}
