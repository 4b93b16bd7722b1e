// The workbench's Settings screen in headless Chromium against a real `nbook serve`: the providers
// and whether each key variable is set (the key itself never reaches the page), the models, and an
// edit of .nbook/config.json seen on "Read again" without a restart.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runNbook } from "../helpers.js";
import { browserMissing, launchChromium, type ServeProcess, startServe } from "./browser.js";

const missing = browserMissing();
const until = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 50 });
const SECRET = "sk-browser-settings-never-shown";

if (missing) {
  it.skip(`settings browser test skipped: ${missing}`, () => {});
} else {
  describe("the Settings screen", { timeout: 90_000 }, () => {
    let dir: string;
    let ws: string;
    let server: ServeProcess;
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "nbook-settings-"));
      ws = join(dir, "ws");
      expect(runNbook(["init", ws], { cwd: dir }).status).toBe(0);
      expect(runNbook(["project", "create", "tide", "--workspace", ws], { cwd: dir }).status).toBe(0);
      writeFileSync(
        join(ws, ".nbook", "config.json"),
        JSON.stringify({
          providers: {
            local: { kind: "openai-compatible", baseURL: "http://127.0.0.1:11434/v1" },
            cloud: { kind: "openai", apiKeyEnv: "NB_BROWSER_SETTINGS_UNSET_API_KEY" },
          },
          defaultModel: "local/qwen3:8b",
        }),
      );
      process.env.NB_BROWSER_SETTINGS_SET_API_KEY = SECRET;
      server = await startServe(ws);
      delete process.env.NB_BROWSER_SETTINGS_SET_API_KEY;
      browser = await launchChromium();
      page = await (await browser.newContext({ locale: "en-GB" })).newPage();
      page.setDefaultTimeout(20_000);
      await page.goto(server.loginUrl);
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await server?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("shows each provider's key state and the models, and an edit after Read again", async () => {
      await page.goto(`${server.origin}/#/p/tide/settings`);
      const rows = page.getByTestId("provider");
      await until(() => rows.count()).toBe(2);
      await until(() =>
        page.locator('[data-id="cloud"] [data-testid="key-state"]').getAttribute("data-state"),
      ).toBe("missing");
      await until(() =>
        page.locator('[data-id="local"] [data-testid="key-state"]').getAttribute("data-state"),
      ).toBe("not_needed");
      expect(await page.getByTestId("default-model").textContent()).toContain("local/qwen3:8b");

      writeFileSync(
        join(ws, ".nbook", "config.json"),
        JSON.stringify({
          providers: { keyed: { kind: "openai", apiKeyEnv: "NB_BROWSER_SETTINGS_SET_API_KEY" } },
          defaultModel: "keyed/gpt-4o-mini",
        }),
      );
      await page.getByTestId("settings-reload").click();
      await until(() => page.getByTestId("default-model").textContent()).toContain("keyed/gpt-4o-mini");
      await until(() =>
        page.locator('[data-id="keyed"] [data-testid="key-state"]').getAttribute("data-state"),
      ).toBe("set");
      expect(await page.content()).not.toContain(SECRET);

      await page.getByTestId("lang").selectOption("zh");
      await until(() => page.locator("h2").first().textContent()).toBe("设置");
    });
  });
}
