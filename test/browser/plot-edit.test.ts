// Editing the plot in the workbench, in a real headless Chromium against a real `nbook serve`:
// a scene dragged to another chapter, scenes and chapters moved with the ↑/↓ buttons, a chapter
// renamed (and a blank title refused by the tool's own rule). Every change goes through the plot
// write tools, so the CLI reads it back and the history records the tool.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runNbook } from "../helpers.js";
import { browserMissing, launchChromium, type ServeProcess, SHOT_DIR, shot, startServe } from "./browser.js";

const missing = browserMissing();

const until = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 50 });

type Scene = { id: number; title: string };
type ChapterJson = { chapter: { title: string }; scenes: Scene[] };
type TreeJson = { acts: { chapters: { id: number; title: string }[] }[] };

if (missing) {
  it.skip(`plot editing browser tests skipped: ${missing}`, () => {});
} else {
  describe("plot editing in Chromium", { timeout: 90_000 }, () => {
    let dir: string;
    let project: string;
    let server: ServeProcess;
    let browser: Browser;
    let page: Page;
    const pageErrors: string[] = [];
    const nbook = (args: string[]) => {
      const r = runNbook(args, { cwd: project });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout;
    };
    const chapterJson = (id: number) =>
      JSON.parse(nbook(["plot", "chapter", String(id), "--json"])) as ChapterJson;
    const sceneTitles = (id: number) => chapterJson(id).scenes.map((s) => s.title);
    const openChapter = async (id: number) => {
      await page.getByTestId("plot-tree").locator(`a[data-chapter="${id}"]`).click();
      await page.getByTestId("tab-chapter").click();
      await until(() => page.getByTestId(`title-chapterId-${id}`).isVisible()).toBe(true);
    };
    // A mouse drag in steps, so Chromium starts an HTML5 drag from the row's grip.
    const drag = async (from: Locator, to: Locator) => {
      const a = (await from.boundingBox())!;
      const b = (await to.boundingBox())!;
      await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
      await page.mouse.down();
      await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 10 });
      await page.mouse.up();
    };
    const chapterItem = (id: number) =>
      page.locator("li.chapter-item").filter({ has: page.locator(`a[data-chapter="${id}"]`) });

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "nbook-plot-edit-"));
      const ws = join(dir, "ws");
      expect(runNbook(["init", ws], { cwd: dir }).status).toBe(0);
      const created = runNbook(["project", "create", "tide", "--sample"], { cwd: ws });
      expect(created.status, created.stderr).toBe(0);
      project = join(ws, "tide");
      server = await startServe(ws);
      browser = await launchChromium();
      const context = await browser.newContext({ viewport: { width: 1366, height: 800 }, locale: "en-GB" });
      page = await context.newPage();
      page.setDefaultTimeout(20_000);
      page.on("pageerror", (e) => pageErrors.push(e.message));
      await page.goto(`${server.origin}/`);
      await page.getByTestId("login-token").fill(server.token);
      await page.getByTestId("login-submit").click();
      await page.getByTestId("project-tide").waitFor();
      await page.goto(`${server.origin}/#/p/tide/plot/1`);
      await page.getByTestId("tab-chapter").click();
      await page.getByTestId("chapter-scenes").waitFor();
    }, 60_000);

    afterEach(async (ctx) => {
      if (ctx.task.result?.state !== "fail") return;
      const name = `failed-plot-edit-${ctx.task.name.replace(/\W+/g, "-").slice(0, 50)}`;
      await shot(page, name).catch(() => {});
      const text = await page
        .locator("main")
        .textContent()
        .catch(() => "");
      writeFileSync(join(SHOT_DIR, `${name}.txt`), `${text}\n\n--- nbook serve ---\n${server.output()}`);
    });

    afterAll(async () => {
      await browser?.close();
      await server?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("drags a scene onto another chapter: both chapters' counts and the stored plot follow", async () => {
      expect(sceneTitles(1)).toEqual(["The bell rings at noon", "The cut page"]);
      expect(sceneTitles(2)).toHaveLength(1);
      await until(() => chapterItem(2).locator(".count").textContent()).toBe("1 scene");
      await drag(page.locator('li.scene-row[data-scene="2"] .grip'), chapterItem(2).locator("a"));
      await until(() => chapterItem(2).locator(".count").textContent()).toBe("2 scenes");
      await until(() => chapterItem(1).locator(".count").textContent()).toBe("1 scene");
      await until(() => page.getByTestId("chapter-scenes").locator("li.scene-row").count()).toBe(1);
      expect(sceneTitles(1)).toEqual(["The bell rings at noon"]);
      expect(sceneTitles(2)).toContain("The cut page");
      expect(nbook(["history", "--limit", "1"])).toContain("save_story_scene");
      await shot(page, "plot-edit-01-dragged");
    });

    it("moves a scene back with the keyboard way (select, then ↑) and reorders it in the chapter", async () => {
      await openChapter(2);
      await until(() => page.getByTestId("chapter-scenes").locator("li.scene-row").count()).toBe(2);
      await page.getByLabel("Move The cut page to chapter").selectOption("1");
      await until(() => chapterItem(1).locator(".count").textContent()).toBe("2 scenes");
      expect(sceneTitles(1)).toEqual(["The bell rings at noon", "The cut page"]);
      await openChapter(1);
      await until(() => page.getByTestId("chapter-scenes").locator("li.scene-row").count()).toBe(2);
      await page.getByLabel("Move The cut page up").click();
      await until(() =>
        page.getByTestId("chapter-scenes").locator("li.scene-row").first().getAttribute("data-scene"),
      ).toBe("2");
      expect(sceneTitles(1)).toEqual(["The cut page", "The bell rings at noon"]);
    });

    it("moves a chapter down in the reading order with its ↓ button", async () => {
      const order = () =>
        (JSON.parse(nbook(["plot", "tree", "--json"])) as TreeJson).acts[0]!.chapters.map((c) => c.id);
      expect(order()).toEqual([1, 2, 3]);
      await page.getByTestId("plot-tree").getByLabel("Move Low Water down", { exact: true }).click();
      await until(() =>
        page
          .getByTestId("plot-tree")
          .locator("a[data-chapter]")
          .evaluateAll((as) => as.map((a) => a.getAttribute("data-chapter"))),
      ).toEqual(["1", "3", "2"]);
      expect(order()).toEqual([1, 3, 2]);
    });

    it("renames a chapter in place; a blank title is refused with the tool's message", async () => {
      await openChapter(1);
      await page.getByTestId("edit-chapterId-1").click();
      const form = page.getByTestId("form-chapterId-1");
      await form.getByLabel("Title").fill("   ");
      await form.getByRole("button", { name: "Save" }).click();
      await until(() => form.getByRole("alert").textContent()).toContain("must not be blank");
      expect(chapterJson(1).chapter.title).toBe("The Drowned Bell");
      await form.getByLabel("Title").fill("The Bell Under a Clear Sky");
      await form.getByRole("button", { name: "Save" }).click();
      await until(() => page.getByTestId("title-chapterId-1").textContent()).toBe(
        "The Bell Under a Clear Sky",
      );
      await until(() => page.getByTestId("plot-tree").locator('a[data-chapter="1"]').textContent()).toContain(
        "The Bell Under a Clear Sky",
      );
      expect(chapterJson(1).chapter.title).toBe("The Bell Under a Clear Sky");
      expect(nbook(["history", "--limit", "1"])).toContain("save_story_chapter");
      await shot(page, "plot-edit-02-renamed");
      expect(pageErrors).toEqual([]);
    });
  });
}
