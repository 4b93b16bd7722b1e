// The Changes screen in a real headless Chromium against a real `nbook serve`: a scripted agent's
// edit appears in the inbox under its session and its turn (titled with the message that began it),
// its diff shows, Keep marks it reviewed (kept across a reload), a revert refused for a same-line
// edit since shows both versions and writes nothing, and Revert turn restores the file (the editor
// shows the old text again, its history and blame beside it).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runNbook } from "../helpers.js";
import {
  browserMissing,
  editorText,
  launchChromium,
  type ServeProcess,
  shot,
  startServe,
} from "./browser.js";

const CHAPTER = "manuscript/01-the-drowned-bell/index.md";
const OPENING = "The fog had burned off by noon";
const EDITED = "The fog had lifted by noon";

const SCRIPT = `turns:
  - text: "Tightening the opening line."
    toolCalls:
      - name: edit
        input:
          path: ${CHAPTER}
          edits:
            - oldText: "${OPENING}"
              newText: "${EDITED}"
  - text: "Done: the fog lifted."
`;

const missing = browserMissing();
const until = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 50 });

if (missing) {
  it.skip(`changes browser test skipped: ${missing}`, () => {});
} else {
  describe("the Changes screen", { timeout: 90_000 }, () => {
    let dir: string;
    let ws: string;
    let server: ServeProcess;
    let browser: Browser;
    let page: Page;
    const pageErrors: string[] = [];
    const chapterPath = () => join(ws, "tide", CHAPTER);

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "nbook-browser-changes-"));
      ws = join(dir, "ws");
      expect(runNbook(["init", ws], { cwd: dir }).status).toBe(0);
      const created = runNbook(["project", "create", "tide", "--sample", "--workspace", ws], { cwd: dir });
      expect(created.status, created.stderr).toBe(0);
      writeFileSync(join(dir, "script.yaml"), SCRIPT);
      server = await startServe(ws, ["--script", join(dir, "script.yaml")]);
      browser = await launchChromium();
      page = await (
        await browser.newContext({ viewport: { width: 1366, height: 900 }, locale: "en-GB" })
      ).newPage();
      page.setDefaultTimeout(20_000);
      page.on("pageerror", (e) => pageErrors.push(e.message));
      await page.goto(`${server.origin}/`);
      await page.getByTestId("login-token").fill(server.token);
      await page.getByTestId("login-submit").click();
      await page.goto(`${server.origin}/#/p/tide/agent`);
      await page.getByTestId("new-session").waitFor();
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await server?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("lists the agent's edit under its session, with its diff", async () => {
      await page.getByTestId("new-mode").selectOption("normal");
      await page.getByTestId("new-session").click();
      await page.waitForURL(/#\/p\/tide\/agent\/\d+$/);
      const session = /agent\/(\d+)$/.exec(page.url())![1]!;
      await page.getByTestId("composer").fill("Tighten the opening line of chapter 1.");
      await page.getByTestId("composer").press("Enter");
      await until(() => page.getByTestId("assistant").allTextContents()).toEqual(
        expect.arrayContaining(["Done: the fog lifted."]),
      );
      expect(readFileSync(chapterPath(), "utf8")).toContain(EDITED);

      await page.getByTestId("nav-changes").click();
      await page.waitForURL(/#\/p\/tide\/changes$/);
      const agentChange = page.locator('[data-testid="change"][data-actor="agent"]');
      await until(() => agentChange.count()).toBe(1);
      const group = page.getByTestId("change-group").filter({ has: agentChange });
      expect(await group.locator(".group-title").textContent()).toBe(`leader.default · session #${session}`);
      // Within the session, its changes are grouped by turn, under the message that began it.
      const turn = group.getByTestId("turn-group").filter({ has: agentChange });
      expect(await turn.getByTestId("turn-title").textContent()).toBe(
        "Tighten the opening line of chapter 1.",
      );
      expect(await turn.getAttribute("data-turn")).toMatch(/^\d+$/);
      // The sample project as the history began is listed too, by an earlier hand.
      expect(await page.locator('[data-testid="change"]:not([data-actor="agent"])').count()).toBeGreaterThan(
        0,
      );

      await agentChange.click();
      await page.waitForURL(/#\/p\/tide\/changes\/c[0-9a-z]+$/);
      const diff = page.getByTestId("change-diff");
      await until(() => diff.locator(".diff-del").allTextContents()).toEqual(
        expect.arrayContaining([expect.stringContaining(OPENING)]),
      );
      expect(await diff.locator(".diff-add").allTextContents()).toEqual(
        expect.arrayContaining([expect.stringContaining(EDITED)]),
      );
      expect(await diff.locator(".diff-file").allTextContents()).toEqual(
        expect.arrayContaining([expect.stringContaining(CHAPTER)]),
      );
      await shot(page, "changes-01-diff");
    });

    it("keeps a change as reviewed in this browser, across a reload", async () => {
      const waiting = async () =>
        Number((await page.getByTestId("changes-waiting").textContent())?.replace(/\D/g, ""));
      const before = await waiting();
      await page.getByTestId("keep").click();
      await until(waiting).toBe(before - 1);
      const id = await page.getByTestId("change-detail").getAttribute("data-id");
      expect(
        JSON.parse(await page.evaluate(`localStorage.getItem("nbook.changes.kept.tide") ?? "[]"`)),
      ).toEqual([id]);
      await page.reload();
      await until(() => page.getByTestId("keep").textContent()).toBe("Back to the inbox");
      await until(waiting).toBe(before - 1);
      // Kept changes leave the inbox (the open one stays) until "Show kept" is ticked.
      await page.goto(`${server.origin}/#/p/tide/changes`);
      await until(() => page.locator(`[data-testid="change"][data-id="${id}"]`).count()).toBe(0);
      await page.getByTestId("show-kept").check();
      await until(() => page.locator(`[data-testid="change"][data-id="${id}"]`).count()).toBe(1);
      await page.locator(`[data-testid="change"][data-id="${id}"]`).click();
      await page.getByTestId("change-diff").waitFor();
    });

    it("shows both versions when the same line changed since, and writes nothing", async () => {
      const edited = readFileSync(chapterPath(), "utf8");
      const moved = edited.replace(EDITED, "The fog had thinned by noon");
      writeFileSync(chapterPath(), moved);
      await page.getByTestId("revert").click();
      const conflict = page.getByTestId("revert-conflict");
      await conflict.waitFor();
      expect(await conflict.getByTestId("conflict-current").textContent()).toContain(
        "The fog had thinned by noon",
      );
      expect(await conflict.getByTestId("conflict-before").textContent()).toContain(OPENING);
      expect(readFileSync(chapterPath(), "utf8")).toBe(moved);
      // The hand edit was recorded before the revert was refused, and the inbox shows it.
      await until(() =>
        page.locator('[data-testid="change"][data-actor="outside"]').allTextContents(),
      ).toEqual(expect.arrayContaining([expect.stringContaining(CHAPTER)]));
      await shot(page, "changes-02-conflict");
      // The hand edit taken back on disk: the agent's line is there again to revert.
      writeFileSync(chapterPath(), edited);
    });

    it("reverts the agent's turn: the file and the editor show the old text", async () => {
      await page.getByTestId("revert-turn").click();
      await until(() => page.getByTestId("revert-done").textContent()).toMatch(/^Reverted, as change c/);
      expect(await page.getByTestId("revert-conflict").count()).toBe(0);
      const text = readFileSync(chapterPath(), "utf8");
      expect(text).toContain(OPENING);
      expect(text).not.toContain(EDITED);
      // The revert is a change of its own, listed by you.
      await until(() => page.locator('[data-testid="change"][data-actor="revert"]').count()).toBe(1);
      await shot(page, "changes-03-reverted");

      await page.goto(`${server.origin}/#/p/tide/files/${encodeURIComponent(CHAPTER)}`);
      await until(() => editorText(page.getByTestId("editor"))).toContain(OPENING);
      expect(await editorText(page.getByTestId("editor"))).not.toContain(EDITED);

      // Beside the editor: the file's history (the agent's edit and its revert) and its blame.
      await page.getByTestId("file-history").locator("summary").click();
      const history = page.getByTestId("file-changes");
      await until(() => history.locator("a").count()).toBeGreaterThanOrEqual(3);
      expect(await history.textContent()).toContain("leader.default · session #");
      const reverted = page.getByTestId("blame").locator('tr[data-actor="revert"]');
      expect(await reverted.allTextContents()).toEqual(
        expect.arrayContaining([expect.stringContaining(OPENING)]),
      );
      expect(await page.getByTestId("blame-words").textContent()).toMatch(/^Words: you \d+, agents \d+/);
      await shot(page, "changes-04-file-history");
    });

    it("raised no page error", () => {
      expect(pageErrors).toEqual([]);
    });
  });
}
