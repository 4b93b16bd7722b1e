// The agent chat as a writer uses it, in headless Chromium against `nbook serve --script`: an
// `@`-mention picked from the popup by keyboard reaches the request the scripted model sees (its
// turn expects the fenced file), a question answered by clicking a choice, `/mode` and `/undo`
// from the composer, an approval drawn above the result line of the call it stopped, a model error
// shown as an alert whose Retry runs the turn again, the usage line, the Changes link and the
// context panel opened from the toolbar at a narrow width; axe-core on the screen throughout.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSampleProject } from "../../src/sample/seed.js";
import { Workspace } from "../../src/workspace/workspace.js";
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
const NOTE = "notes/bells.md";

// Every call of the session, in order; a turn's `expect` failing would fail the run (an error in the chat).
const SCRIPT = {
  turns: [
    { text: "I read the chapter you attached.", expect: { lastUser: "<<<untrusted-file-mention " } },
    {
      toolCalls: [
        {
          name: "request_user_input",
          input: { question: "Which bell rings?", choices: ["The first", "The third"] },
        },
      ],
    },
    { text: "The third bell it is.", expect: { lastToolResult: "The third" } },
    { toolCalls: [{ name: "write", input: { path: NOTE, content: "Seven bells under the floor.\n" } }] },
    { text: "Wrote the note.", expect: { lastToolResult: "Created" } },
    { error: "the request was refused: prompt too long" },
    { text: "Recovered after the retry." },
  ],
};

if (missing) {
  it.skip(`chat browser tests skipped: ${missing}`, () => {});
} else {
  describe("a chat for writers in Chromium", { timeout: 150_000 }, () => {
    let dir: string;
    let ws: Workspace;
    let server: ServeProcess;
    let browser: Browser;
    let page: Page;
    let sessionId: string;
    const findings: string[] = [];

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "nbook-chat-room-"));
      ws = Workspace.init(join(dir, "ws"));
      await createSampleProject(ws, "tide");
      writeFileSync(join(dir, "script.json"), JSON.stringify(SCRIPT));
      server = await startServe(ws.root, ["--script", join(dir, "script.json")]);
      browser = await launchChromium();
      const context = await browser.newContext({ viewport: { width: 1000, height: 800 }, locale: "en-GB" });
      page = await context.newPage();
      page.setDefaultTimeout(20_000);
      await page.goto(server.loginUrl);
      const res = await page.request.post(`${server.origin}/api/projects/tide/sessions`, {
        data: {},
        headers: { origin: server.origin },
      });
      sessionId = ((await res.json()) as { session: { id: string } }).session.id;
      await page.goto(`${server.origin}/#/p/tide/agent/${sessionId}`);
      await page.getByTestId("composer").waitFor();
    }, 90_000);

    afterAll(async () => {
      await browser?.close();
      await server?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const axe = async (where: string) => findings.push(...severe(await axeFindings(page), where));
    const composer = () => page.getByTestId("composer");
    const assistant = () => page.getByTestId("assistant").allTextContents();

    it("attaches a file picked from the @ popup by keyboard, and the model's request carries it", async () => {
      await composer().click();
      await composer().pressSequentially("What happens in @drowned");
      await until(() => page.getByTestId("popup-option").count()).toBeGreaterThan(0);
      expect(await composer().getAttribute("aria-activedescendant")).toBeTruthy();
      await axe("mention popup");
      await shot(page, "chat-room-1-mention-popup");
      await composer().press("ArrowDown");
      await composer().press("ArrowUp");
      await composer().press("Enter");
      await until(() => page.getByTestId("attached").textContent()).toContain(
        "manuscript/01-the-drowned-bell/index.md",
      );
      expect(await composer().inputValue()).toContain("@manuscript/01-the-drowned-bell/index.md ");
      await composer().press("Enter");
      await until(assistant).toContain("I read the chapter you attached.");
      expect(await page.getByTestId("chat-error").count()).toBe(0);
      await until(() => page.getByTestId("sent-attached").textContent()).toContain("01-the-drowned-bell");
      await until(() => page.getByTestId("chat-usage").textContent()).toMatch(/This session: 1 ·/);
    });

    it("answers a question by clicking one of its choices", async () => {
      await composer().fill("Ask me which bell");
      await composer().press("Enter");
      await until(() => page.getByTestId("choice").count()).toBe(2);
      await axe("question");
      await page.getByTestId("choice").filter({ hasText: "The third" }).click();
      await until(assistant).toContain("The third bell it is.");
      await until(() => page.getByTestId("settled").last().textContent()).toBe("Answered");
    });

    it("switches mode and takes a turn back with slash commands from the completion popup", async () => {
      await composer().fill("");
      await composer().pressSequentially("/mo");
      await until(() => page.getByTestId("popup-option").allTextContents()).toEqual([
        expect.stringContaining("/mode"),
      ]);
      await composer().press("Tab");
      await until(() => page.getByTestId("popup-option").count()).toBe(3);
      await composer().pressSequentially("dis");
      await composer().press("Enter");
      expect(await composer().inputValue()).toBe("/mode discuss");
      await composer().press("Enter");
      await until(() => page.getByTestId("mode-discuss").getAttribute("aria-pressed")).toBe("true");

      // In discuss mode the write waits for approval: the approval comes before the call's result line.
      await composer().fill("Note the bells");
      await composer().press("Enter");
      await page.getByTestId("approve").click();
      await until(assistant).toContain("Wrote the note.");
      const order = await page
        .locator('[data-testid="approval"], [data-testid="tool-card"]')
        .evaluateAll((els) => els.map((e) => `${e.getAttribute("data-testid")}:${e.textContent}`));
      const ask = order.findIndex((x) => x.startsWith("approval:") && x.includes("write"));
      const card = order.findIndex((x) => x.startsWith("tool-card:") && x.includes(NOTE));
      expect(ask).toBeGreaterThanOrEqual(0);
      expect(card).toBeGreaterThan(ask);
      // And so after a reload, drawn from the stored transcript.
      await page.reload();
      await until(assistant).toContain("Wrote the note.");
      const stored = await page
        .locator('[data-testid="approval"], [data-testid="tool-card"]')
        .evaluateAll((els) => els.map((e) => `${e.getAttribute("data-testid")}:${e.textContent}`));
      expect(stored.findIndex((x) => x.startsWith("tool-card:") && x.includes(NOTE))).toBeGreaterThan(
        stored.findIndex((x) => x.startsWith("approval:") && x.includes("write")),
      );
      expect(existsSync(join(ws.root, "tide", NOTE))).toBe(true);

      await composer().fill("/undo");
      await composer().press("Enter");
      await until(() => page.getByTestId("chat-notice").textContent()).toContain("Took back");
      expect(existsSync(join(ws.root, "tide", NOTE))).toBe(false);
      await composer().fill("/rewind 0");
      await composer().press("Enter");
      await until(() => page.getByRole("alert").first().textContent()).toContain("Usage: /rewind");
    });

    it("shows a model error as an alert, and Retry runs the turn again", async () => {
      await composer().fill("Go on");
      await composer().press("Enter");
      const err = page.getByTestId("chat-error");
      await until(() => err.count()).toBe(1);
      expect(await err.getAttribute("role")).toBe("alert");
      expect(await err.textContent()).toContain("prompt too long");
      // The live error is redrawn from the transcript when the run ends: read it once it settles.
      await until(() =>
        err.evaluate((el) =>
          el.isConnected ? el.ownerDocument.defaultView!.getComputedStyle(el).color : "",
        ),
      ).toBe("rgb(163, 58, 43)");
      await axe("model error");
      await shot(page, "chat-room-2-error");
      await page.getByTestId("retry").click();
      await until(assistant).toContain("Recovered after the retry.");
      expect(await page.getByTestId("retry").count()).toBe(0);
    });

    it("links the session's changes and opens the context panel at a narrow width", async () => {
      const link = page.getByTestId("session-changes");
      await until(() => link.textContent()).toMatch(/This session's changes \(\d+\)/);
      expect(await link.getAttribute("href")).toMatch(/^#\/p\/tide\/changes\/\w+$/);
      // Below 1100px the side panel is folded away; the toolbar opens it.
      expect(await page.getByTestId("context-panel").isVisible()).toBe(false);
      await page.getByTestId("show-context").click();
      await until(() => page.getByTestId("context-panel").isVisible()).toBe(true);
      await until(() => page.getByTestId("sections").count()).toBe(1);
      await axe("context panel");
      await shot(page, "chat-room-3-context");
      // Escape closes it and gives the focus back to the button; the button opens it again.
      await page.keyboard.press("Escape");
      await until(() => page.getByTestId("context-panel").isVisible()).toBe(false);
      expect(
        await page.getByTestId("show-context").evaluate((el) => el === el.ownerDocument.activeElement),
      ).toBe(true);
      await page.getByTestId("show-context").click();
      await until(() => page.getByTestId("context-panel").isVisible()).toBe(true);
      // The chat in Chinese: its own strings translated, and axe-clean too.
      await page.getByTestId("lang").selectOption("zh");
      await until(() => page.getByTestId("show-context").textContent()).toBe("模型看到的内容");
      await until(() => link.textContent()).toMatch(/^本会话的改动（\d+）$/);
      await axe("zh chat");
      await shot(page, "chat-room-4-zh");
      await page.getByTestId("lang").selectOption("en");
      await link.click();
      await until(() => page.url()).toContain("/changes/");
      expect(findings).toEqual([]);
      // The scripted model answered every turn in order, none left over.
      expect(JSON.parse(readFileSync(join(dir, "script.json"), "utf8")).turns).toHaveLength(7);
    });
  });
}
