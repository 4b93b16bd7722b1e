// Files for a book, in Chromium: chapters listed by title with word totals, a new chapter titled
// from its name with a true count, a chapter renamed, a file moved and a chapter deleted with
// confirmation, the delete reverted from the Changes screen; axe-core over the files screen.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
  it.skip(`files-for-a-book browser tests skipped: ${missing}`, () => {});
} else {
  describe("files for a book, in Chromium", { timeout: 120_000 }, () => {
    let dir: string;
    let project: string;
    let server: ServeProcess;
    let browser: Browser;
    let page: Page;
    const link = (path: string) => page.locator(`a[data-path="${path}"]`);
    const files = (path = "") => page.goto(`${server.origin}/#/p/novel/files${path ? `/${path}` : ""}`);

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "nbook-browser-files-book-"));
      const ws = join(dir, "ws");
      expect(runNbook(["init", ws], { cwd: dir }).status).toBe(0);
      expect(runNbook(["project", "create", "novel", "--workspace", ws], { cwd: dir }).status).toBe(0);
      project = join(ws, "novel");
      const write = (rel: string, text: string) => {
        mkdirSync(join(project, rel, ".."), { recursive: true });
        writeFileSync(join(project, rel), text);
      };
      write("manuscript/01-the-mill/index.md", "# The Mill\n\nMira heard the bell at the mill.\n");
      write("manuscript/02-the-road/index.md", "# The Road\n\n雾里有钟声。\n");
      write("lorebook/mira.md", "# Mira\n\nA miller's daughter.\n");
      server = await startServe(ws);
      browser = await launchChromium();
      page = await (await browser.newContext({ viewport: { width: 1366, height: 900 } })).newPage();
      page.setDefaultTimeout(20_000);
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

    it("names chapters by their title, with each chapter's words and the manuscript's total", async () => {
      await files();
      const mill = link("manuscript/01-the-mill/index.md");
      await until(() => mill.getByTestId("file-title").textContent()).toBe("The Mill index.md");
      expect(await mill.getByTestId("chapter-words").textContent()).toBe("7");
      expect(await link("manuscript/02-the-road/index.md").getByTestId("chapter-words").textContent()).toBe(
        "5",
      );
      expect(await page.getByTestId("manuscript-words").textContent()).toBe("12");
      // The export is one click away, at the top of the screen.
      expect(await page.getByTestId("export-book").locator("button[type=submit]").isVisible()).toBe(true);
    });

    it("a new chapter gets a title made from its name, and counts 0 words", async () => {
      await page.getByTestId("new-file").fill("manuscript/03-the-bell-road/index.md");
      await page.getByTestId("new-file").press("Enter");
      const created = link("manuscript/03-the-bell-road/index.md");
      await until(() => created.getByTestId("file-title").textContent()).toBe("The Bell Road index.md");
      expect(await created.getByTestId("chapter-words").textContent()).toBe("0");
      expect(readFileSync(join(project, "manuscript/03-the-bell-road/index.md"), "utf8")).toBe(
        "# The Bell Road\n",
      );
    });

    it("renames a chapter: its title in the tree changes, the file keeps its place", async () => {
      await files("manuscript/01-the-mill/index.md");
      await until(() => page.getByTestId("act-on").inputValue()).toBe("manuscript/01-the-mill");
      await page.getByTestId("rename").click();
      const value = page.getByTestId("action-value");
      expect(await value.inputValue()).toBe("The Mill");
      await value.fill("The Watermill");
      await shot(page, "files-book-rename");
      await page.getByTestId("confirm-action").click();
      const mill = link("manuscript/01-the-mill/index.md");
      await until(() => mill.getByTestId("file-title").textContent()).toBe("The Watermill index.md");
      expect(readFileSync(join(project, "manuscript/01-the-mill/index.md"), "utf8")).toBe(
        "# The Watermill\n\nMira heard the bell at the mill.\n",
      );
    });

    it("moves a file with confirmation; the tree shows it at its new place", async () => {
      await files("lorebook/mira.md");
      await until(() => page.getByTestId("act-on").inputValue()).toBe("lorebook/mira.md");
      await page.getByTestId("move").click();
      await page.getByTestId("action-value").fill("lorebook/people/mira.md");
      await page.getByTestId("confirm-action").click();
      await link("lorebook/people/mira.md").waitFor();
      await until(() => link("lorebook/mira.md").count()).toBe(0);
      await until(() => page.getByTestId("open-path").textContent()).toBe("lorebook/people/mira.md");
      expect(existsSync(join(project, "lorebook/people/mira.md"))).toBe(true);
    });

    it("deletes a chapter only once confirmed, and a revert from the Changes screen brings it back", async () => {
      await files("manuscript/02-the-road/index.md");
      await until(() => page.getByTestId("act-on").inputValue()).toBe("manuscript/02-the-road");
      // Cancelled: nothing is deleted.
      await page.getByTestId("delete").click();
      await page.getByTestId("file-dialog").getByRole("button", { name: "Cancel" }).click();
      expect(existsSync(join(project, "manuscript/02-the-road/index.md"))).toBe(true);
      await page.getByTestId("delete").click();
      expect(await page.getByTestId("file-dialog").textContent()).toContain("1 file(s) will be deleted");
      const answer = page.waitForResponse((r) => r.url().includes("/files/delete"));
      await page.getByTestId("confirm-action").click();
      const { change } = (await (await answer).json()) as { change: string };
      await until(() => link("manuscript/02-the-road/index.md").count()).toBe(0);
      expect(existsSync(join(project, "manuscript/02-the-road"))).toBe(false);
      await until(() => page.getByTestId("manuscript-words").textContent()).toBe("7");

      await page.goto(`${server.origin}/#/p/novel/changes/${change}`);
      await until(() => page.getByTestId("change-summary").textContent()).toBe(
        "Deleted manuscript/02-the-road/ (1 file)",
      );
      await page.getByTestId("revert").click();
      await page.getByTestId("revert-done").waitFor();
      expect(readFileSync(join(project, "manuscript/02-the-road/index.md"), "utf8")).toContain("雾里有钟声");
      await files();
      await until(() => link("manuscript/02-the-road/index.md").getByTestId("file-title").textContent()).toBe(
        "The Road index.md",
      );
    });

    it("has no serious or critical axe-core violation on the files screen, its dialog open or not", async () => {
      await files("manuscript/01-the-mill/index.md");
      await page.getByTestId("act-on").waitFor();
      const found = severe(await axeFindings(page), "files");
      await page.getByTestId("delete").click();
      found.push(...severe(await axeFindings(page), "files, delete dialog"));
      await shot(page, "files-book-delete-dialog");
      await page.getByTestId("file-dialog").getByRole("button", { name: "Cancel" }).click();
      expect(found).toEqual([]);
    });
  });
}
