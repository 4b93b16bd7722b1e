// The agent screen on a long session in Chromium: it opens on the newest page only, the entries
// before it load as the reader scrolls up, in order, without losing the place, and the chat holds
// a window of them: however long the session (5,001 entries here), the DOM keeps a few hundred.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { SessionStore } from "../../src/harness/store/index.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { browserMissing, launchChromium, type ServeProcess, shot, startServe } from "./browser.js";

const STEPS = 1667;
/** Items the chat may hold at once (chat-window.ts holds 300 entries; a step is 3 entries, 2 items). */
const MAX_ITEMS = 300;
const missing = browserMissing();
const until = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 50 });

if (missing) {
  it.skip(`chat paging browser test skipped: ${missing}`, () => {});
} else {
  describe("the agent chat on a long session", { timeout: 90_000 }, () => {
    let dir: string;
    let server: ServeProcess;
    let browser: Browser;
    let page: Page;
    let sessionId: string;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "nbook-chat-pages-"));
      const ws = Workspace.init(join(dir, "ws"));
      ws.createProject("tide");
      const store = SessionStore.forWorkspace(ws);
      const s = store.createSession({
        profile: { key: "leader.default", initial: z.object({}) },
        project: "tide",
        title: "Long",
      });
      // Three entries a step (a message, its call's result, the user's reply): 5,001 entries.
      for (let i = 0; i < STEPS; i++) {
        store.commitStep(s.id, [
          {
            kind: "assistant",
            data: {
              text: `step ${i}`,
              toolCalls: [{ id: `c${i}`, key: "read", input: { path: `f${i}.md` } }],
            },
          },
          { kind: "tool_result", data: { callId: `c${i}`, key: "read", ok: true, text: `result ${i}` } },
          { kind: "user", data: { text: `reply ${i}` } },
        ]);
      }
      sessionId = s.id;
      store.close();
      writeFileSync(join(dir, "script.yaml"), "turns:\n  - text: unused\n");
      server = await startServe(ws.root, ["--script", join(dir, "script.yaml")]);
      browser = await launchChromium();
      const context = await browser.newContext({ viewport: { width: 1366, height: 800 }, locale: "en-GB" });
      page = await context.newPage();
      page.setDefaultTimeout(20_000);
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await server?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const shown = () =>
      page
        .getByTestId("assistant")
        .allTextContents()
        .then((t) => t.map((x) => Number(x.replace(/\D/g, ""))));

    const items = () => page.locator("[data-item]").count();
    const contiguous = (s: number[]) => s.every((x, i) => i === 0 || x === s[i - 1]! + 1);

    it("opens on the newest page, loads older entries on scroll in order, and keeps the DOM bounded", async () => {
      const transcripts: string[] = [];
      page.on("request", (r) => {
        if (r.url().includes("/transcript")) transcripts.push(r.url());
      });
      await page.goto(server.loginUrl);
      await page.goto(`${server.origin}/#/p/tide/agent/${sessionId}`);
      // This first wait failed now and then in CI only (nothing shown in 20 s); what the page asked
      // for and said is printed then, to find out why.
      const heard: string[] = [];
      const t0 = Date.now();
      page.on("response", (r) => heard.push(`${Date.now() - t0} ms ${r.status()} ${r.url()}`));
      page.on("requestfailed", (r) => heard.push(`${Date.now() - t0} ms failed ${r.url()}`));
      page.on("console", (m) => heard.push(`console ${m.type()}: ${m.text()}`));
      await until(() => shown().then((s) => s[s.length - 1]))
        .toBe(STEPS - 1)
        .catch(async (e: unknown) => {
          console.log(`at ${page.url()}:\n${heard.join("\n")}\n${await page.locator("body").textContent()}`);
          throw e;
        });
      // 100 entries: the newest 33 steps (and the reply before them), not 1,667.
      const first = await shown();
      expect(first.length).toBeLessThanOrEqual(34);
      expect(first[0]).toBeGreaterThan(STEPS - 40);
      await shot(page, "chat-pages-1-newest");

      // Scroll to the top: the page before loads above, and the view stays where the reader was.
      const messages = page.getByTestId("messages");
      const anchorText = await page.getByTestId("assistant").first().textContent();
      await messages.evaluate((el) => {
        el.scrollTop = 0;
      });
      await until(() => shown().then((s) => s.length)).toBeGreaterThan(first.length + 20);
      const box = await messages.boundingBox();
      const still = await page
        .getByTestId("assistant")
        .filter({ hasText: new RegExp(`^${anchorText}$`) })
        .boundingBox();
      expect(still!.y).toBeGreaterThan(box!.y);

      // Up to the root: every step is seen, in order, while the chat never holds more than its window.
      const seen = new Set<number>(await shown());
      let most = 0;
      for (let i = 0; i < 120 && (await shown())[0] !== 0; i++) {
        const top = (await shown())[0]!;
        await messages.evaluate((el) => {
          el.scrollTop = 0;
        });
        await until(() => shown().then((s) => s[0]!)).toBeLessThan(top);
        const now = await shown();
        expect(contiguous(now)).toBe(true);
        for (const x of now) seen.add(x);
        most = Math.max(most, await items());
      }
      expect((await shown())[0]).toBe(0);
      expect(seen.size).toBe(STEPS);
      expect(most).toBeLessThanOrEqual(MAX_ITEMS);
      expect(await messages.evaluate((el) => el.querySelectorAll("*").length)).toBeLessThan(3000);
      expect(await page.getByTestId("load-older").count()).toBe(0);
      expect(transcripts.every((u) => /limit=\d+/.test(u))).toBe(true);
      await shot(page, "chat-pages-2-root");

      // Scrolling back down reads the newer entries again; the latest are one click away.
      const bottom = (await shown()).at(-1)!;
      await messages.evaluate((el) => {
        el.scrollTop = el.scrollHeight;
      });
      await until(() => shown().then((s) => s.at(-1)!)).toBeGreaterThan(bottom);
      expect(contiguous(await shown())).toBe(true);
      expect(await items()).toBeLessThanOrEqual(MAX_ITEMS);
      await page.getByTestId("jump-latest").click();
      await until(() => shown().then((s) => s.at(-1))).toBe(STEPS - 1);
      expect(await page.getByTestId("jump-latest").count()).toBe(0);
      expect((await shown()).length).toBeLessThanOrEqual(34);
    });
  });
}
