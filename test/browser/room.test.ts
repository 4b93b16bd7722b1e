// The writing room's Jobs and sessions in headless Chromium against a real `nbook serve`: a
// workflow run's result and error on the Jobs screen, ephemeral workflow agents hidden until asked
// for, a session renamed, archived, restored and deleted; then axe-core over every screen in both
// languages with no serious or critical violation. Screenshots go to .tmp/browser/room-*.png.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { SessionStore } from "../../src/harness/store/index.js";
import { createSampleProject } from "../../src/sample/seed.js";
import { Workspace } from "../../src/workspace/workspace.js";
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

const RESULT_FLOW = `export const title = "Count the bells";
export default async function run(wf) {
  const agent = await wf.agents.create("adhoc", { initial: { systemPrompt: "Answer in two words." }, ephemeral: true });
  const said = (await agent.invoke({ message: "How many bells?" })).message;
  return { bells: 7, said };
}
`;
const ERROR_FLOW = `export const title = "Find the eighth bell";
export default async function run() {
  throw new Error("the eighth bell is not in the manuscript");
}
`;

if (missing) {
  it.skip(`writing room browser tests skipped: ${missing}`, () => {});
} else {
  describe("jobs, sessions and accessibility in Chromium", { timeout: 120_000 }, () => {
    let dir: string;
    let ws: Workspace;
    let server: ServeProcess;
    let browser: Browser;
    let page: Page;
    const ids: Record<string, string> = {};
    const runs: Record<string, string> = {};
    const pageErrors: string[] = [];

    const runFlow = (name: string, source: string) => {
      writeFileSync(join(dir, `${name}.js`), source);
      const r = runNbook(
        [
          "workflows",
          "run",
          "--file",
          join(dir, `${name}.js`),
          "--script",
          join(dir, "script.yaml"),
          "--json",
        ],
        { cwd: join(ws.root, "tide") },
      );
      return (JSON.parse(r.stdout) as { run: { id: string; status: string } }).run;
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "nbook-room-"));
      ws = Workspace.init(join(dir, "ws"));
      await createSampleProject(ws, "tide");
      writeFileSync(join(dir, "script.yaml"), "turns:\n  - text: Seven bells.\n");
      const store = SessionStore.forWorkspace(ws);
      const profile = { key: "leader.default", initial: z.object({}) };
      ids.draft = store.createSession({ profile, project: "tide", title: "Draft A" }).id;
      ids.scratch = store.createSession({ profile, project: "tide", title: "Scratch" }).id;
      store.close();
      const ok = runFlow("result", RESULT_FLOW);
      expect(ok.status).toBe("completed");
      runs.ok = ok.id;
      const failed = runFlow("error", ERROR_FLOW);
      expect(failed.status).toBe("failed");
      runs.failed = failed.id;
      server = await startServe(ws.root, ["--script", join(dir, "script.yaml")]);
      browser = await launchChromium();
      const context = await browser.newContext({ viewport: { width: 1366, height: 800 }, locale: "en-GB" });
      page = await context.newPage();
      page.setDefaultTimeout(20_000);
      page.on("pageerror", (e) => pageErrors.push(String(e)));
      await page.goto(server.loginUrl);
      await page.getByTestId("nav-bookshelf").waitFor();
    }, 90_000);

    afterAll(async () => {
      await browser?.close();
      await server?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("shows a workflow run's result and its agents on the Jobs screen", async () => {
      await page.goto(`${server.origin}/#/p/tide/jobs/${runs.ok}`);
      const detail = page.getByTestId("run-detail");
      await until(() => detail.getAttribute("data-status")).toBe("completed");
      const result = JSON.parse((await page.getByTestId("run-result").textContent()) ?? "") as {
        bells: number;
        said: string;
      };
      expect(result).toEqual({ bells: 7, said: "Seven bells." });
      expect(await detail.textContent()).toContain("ephemeral");
      await shot(page, "room-01-jobs-result");
    });

    it("shows a failed run's error", async () => {
      await page.goto(`${server.origin}/#/p/tide/jobs/${runs.failed}`);
      await until(() => page.getByTestId("run-detail").getAttribute("data-status")).toBe("failed");
      expect(await page.getByTestId("run-error").textContent()).toContain(
        "the eighth bell is not in the manuscript",
      );
      await shot(page, "room-02-jobs-error");
    });

    it("hides ephemeral workflow agents from the session list until asked", async () => {
      await page.goto(`${server.origin}/#/p/tide/agent`);
      const links = page.getByTestId("session-link");
      await until(() => links.count()).toBe(2);
      await page.getByTestId("show-ephemeral").check();
      await until(() => links.count()).toBeGreaterThan(2);
      await page.getByTestId("show-ephemeral").uncheck();
      await until(() => links.count()).toBe(2);
    });

    it("renames, archives, restores and deletes a session", async () => {
      await page.goto(`${server.origin}/#/p/tide/agent/${ids.draft}`);
      await page.getByTestId("session-title").fill("The drowned bell, first pass");
      await page.getByTestId("rename-session").click();
      const draft = page.locator(`[data-testid="session-link"][data-id="${ids.draft}"]`);
      await until(() => draft.textContent()).toContain("The drowned bell, first pass");
      await shot(page, "room-03-session-renamed");

      await page.goto(`${server.origin}/#/p/tide/agent/${ids.scratch}`);
      await page.getByTestId("archive-session").click();
      await page.getByTestId("restore-session").waitFor();
      // Archived, it leaves the list once another session is open, and is still exportable.
      await page.goto(`${server.origin}/#/p/tide/agent/${ids.draft}`);
      const scratch = page.locator(`[data-testid="session-link"][data-id="${ids.scratch}"]`);
      await until(() => scratch.count()).toBe(0);
      const exported = runNbook(["sessions", "export", ids.scratch], { cwd: ws.root });
      expect(exported.status, exported.stderr).toBe(0);
      await page.getByTestId("show-archived").check();
      await until(() => scratch.count()).toBe(1);
      await scratch.click();
      await page.getByTestId("restore-session").click();
      await page.getByTestId("archive-session").click();
      page.once("dialog", (d) => void d.accept());
      await page.getByTestId("delete-session").click();
      await until(() => scratch.count()).toBe(0);
      const store = SessionStore.forWorkspace(ws);
      expect(() => store.session(ids.scratch)).toThrow(/No session/);
      expect(store.session(ids.draft).title).toBe("The drowned bell, first pass");
      store.close();
      await shot(page, "room-04-session-deleted");
    });

    it("refuses to delete a session whose model calls count in the usage totals", async () => {
      const store = SessionStore.forWorkspace(ws);
      const agent = store
        .listSessions({ project: "tide" })
        .find((s) => s.id !== ids.draft && s.status === "archived");
      store.close();
      expect(agent, "the ephemeral workflow agent, archived when its run completed").toBeDefined();
      const r = await page.evaluate(
        async (id) => (await fetch(`/api/sessions/${id}`, { method: "DELETE" })).json(),
        agent!.id,
      );
      expect(r).toMatchObject({ error: { code: "conflict" } });
      expect(JSON.stringify(r)).toContain("model call");
    });

    const SCREENS = [
      ["bookshelf", "/#/"],
      ["files", "/#/p/tide/files"],
      ["agent", "/#/p/tide/agent/draft"],
      ["world", "/#/p/tide/world"],
      ["plot", "/#/p/tide/plot"],
      ["goals", "/#/p/tide/goals"],
      ["jobs", "/#/p/tide/jobs/ok"],
      ["changes", "/#/p/tide/changes"],
      ["settings", "/#/p/tide/settings"],
    ] as const;

    type Win = { document: { activeElement: { getAttribute: (n: string) => string | null } | null } };

    it("has no serious or critical axe-core violation on any screen, in English and Chinese", async () => {
      const counts: Record<string, number> = { minor: 0, moderate: 0, serious: 0, critical: 0 };
      const bad: string[] = [];
      for (const lang of ["en", "zh"] as const) {
        await page.goto(`${server.origin}/#/`);
        await page.getByTestId("lang").selectOption(lang);
        for (const [name, path] of SCREENS) {
          const url = path.replace("/draft", `/${ids.draft}`).replace("/jobs/ok", `/jobs/${runs.ok}`);
          await page.goto(`${server.origin}${url}`);
          await page.getByTestId("nav-bookshelf").waitFor();
          // The Plot screen is checked with a chapter's brief open: the longest panel there is.
          if (name === "plot") {
            await page.locator('[data-testid="plot-tree"] a').first().click();
            await page.getByTestId("brief").waitFor();
          }
          await page.waitForLoadState("networkidle");
          const findings = await axeFindings(page);
          for (const f of findings) counts[f.impact ?? "minor"] += f.nodes.length;
          bad.push(...severe(findings, `${lang}/${name}`));
          if (name === "jobs" && lang === "zh")
            expect(await page.getByTestId("run-detail").textContent()).toContain("已完成");
          await shot(page, `room-axe-${lang}-${name}`);
        }
      }
      console.log(`axe-core violations by impact (nodes, 18 screens): ${JSON.stringify(counts)}`);
      expect(bad).toEqual([]);
    });

    it("reaches the content with the first Tab on the bookshelf", async () => {
      // A fresh load (not a hash change), so nothing holds the focus yet.
      await page.goto(`${server.origin}/`);
      await page.getByTestId("nav-bookshelf").waitFor();
      await page.keyboard.press("Tab");
      const focused = await page.evaluate(() =>
        (globalThis as unknown as Win).document.activeElement?.getAttribute("data-testid"),
      );
      expect(focused).toBe("skip-link");
    });

    it("raised no page error", () => {
      expect(pageErrors).toEqual([]);
    });
  });
}
