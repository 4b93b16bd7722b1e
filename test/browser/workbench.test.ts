// The web workbench in a real headless Chromium against a real `nbook serve`, end to end: sign in,
// create a project from the sample, edit and save a chapter (and a conflict), a discuss-mode chat on
// the scripted model whose write stops with a diff and runs once approved, the World and Plot views.
// Each step waits for what the page shows, never for a fixed time; screenshots go to .tmp/browser/.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runNbook } from "../helpers.js";
import {
  axeFindings,
  browserMissing,
  editorText,
  launchChromium,
  type ServeProcess,
  SHOT_DIR,
  severe,
  shot,
  startServe,
} from "./browser.js";

const CHAPTER = "manuscript/01-the-drowned-bell/index.md";
const OPENING = "The fog had burned off by noon";
const EDITED = "The fog had lifted by noon";

/** The scripted model: one edit of the chapter's opening (stopped in discuss mode), then a reply. */
const SCRIPT = `turns:
  - text: "I will tighten the opening line."
    toolCalls:
      - name: task_create
        input: { title: "Tighten the opening line" }
      - name: edit
        input:
          path: ${CHAPTER}
          edits:
            - oldText: "${OPENING}"
              newText: "${EDITED}"
  - text: "Done: the opening now says the fog lifted."
  - text: "One question first."
    toolCalls:
      - name: request_user_input
        input: { question: "Which name should the ferryman have?", choices: [Oren, Bram] }
  - text: "The ferryman is Oren."
    expect: { lastToolResult: "Oren" }
  - text: "Listening to the bells…"
    waitForAbort: true
  - text: "Ringing the bells in the background."
    toolCalls:
      - name: bash
        input: { command: "echo ringing; sleep 60", background: true }
  - text: "The bells ring on."
  - text: "The ringing was stopped."
sessions:
  # The second session has turns of its own, so whenever the first one's job result comes back
  # (a turn of its own, above), the two never take each other's turns.
  "2":
    - text: "Let me rename the bell."
      toolCalls:
        - name: edit
          input:
            path: ${CHAPTER}
            edits:
              - oldText: "the third bell rang"
                newText: "the Drowned Bell rang"
    - text: "Understood, I left it."
      expect: { lastToolResult: "Keep the old name" }
`;

/** A World Engine script that leaves one E1 issue: an increment whose base slice is deleted. */
const ISSUE_SCRIPT = `const t = (s) => world.time.parse(s);
const base = world.slice.write({ time: t("14 Fog 91 AL, 08:30"), title: "An eighth bell is found", patches: [
  { subjectId: "eighth-bell", type: "bell", name: "The eighth bell", path: "/number", op: "replace", value: 8 },
]});
world.slice.write({ time: t("14 Fog 91 AL, 09:30"), title: "The bells are renumbered", patches: [
  { subjectId: "eighth-bell", path: "/number", op: "increment", value: 1 },
]});
world.slice.delete(base.sliceId);
`;

const missing = browserMissing();

/** Poll what the page shows until it matches: vitest's poll gives up after 1 s, too soon on a busy machine. */
const until = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 50 });

if (missing) {
  it.skip(`web workbench browser tests skipped: ${missing}`, () => {});
} else {
  describe("web workbench in Chromium", { timeout: 90_000 }, () => {
    let dir: string;
    let ws: string;
    let server: ServeProcess;
    let browser: Browser;
    let page: Page;
    const requests: string[] = [];
    const pageErrors: string[] = [];
    const chapterPath = () => join(ws, "tide", CHAPTER);

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "nbook-browser-"));
      ws = join(dir, "ws");
      const init = runNbook(["init", ws], { cwd: dir });
      expect(init.status, init.stderr).toBe(0);
      writeFileSync(join(dir, "script.yaml"), SCRIPT);
      // A configured provider whose key variable is not set: offered, and flagged, in the new-session
      // form (every session still runs on the script).
      writeFileSync(
        join(ws, ".nbook", "config.json"),
        JSON.stringify({
          providers: {
            cloud: { kind: "openai", apiKeyEnv: "NBOOK_BROWSER_TEST_KEY", models: { "gpt-test": {} } },
          },
        }),
      );
      server = await startServe(ws, ["--script", join(dir, "script.yaml")]);
      browser = await launchChromium();
      // One context: the tabs of one browser, sharing the session cookie.
      const context = await browser.newContext({ viewport: { width: 1366, height: 800 }, locale: "en-GB" });
      page = await context.newPage();
      page.setDefaultTimeout(20_000);
      page.on("request", (r) => requests.push(r.url()));
      page.on("pageerror", (e) => pageErrors.push(e.message));
    }, 60_000);

    // A failed step leaves what the page showed and what the server printed beside the screenshots.
    afterEach(async (ctx) => {
      if (ctx.task.result?.state !== "fail") return;
      const name = `failed-${ctx.task.name.replace(/\W+/g, "-").slice(0, 60)}`;
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

    it("signs in with the token nbook serve printed", async () => {
      await page.goto(`${server.origin}/`);
      await page.getByTestId("login-token").waitFor();
      await page.getByTestId("login-token").fill("not-the-token");
      await page.getByTestId("login-submit").click();
      await until(() => page.getByRole("alert").textContent()).toContain("wrong or already used");
      await shot(page, "01-login");
      await page.getByTestId("login-token").fill(server.token);
      await page.getByTestId("login-submit").click();
      await page.getByTestId("create-project").waitFor();
      // The token is spent: the same link fails for anyone else (a browser without the cookie).
      const again = await fetch(server.loginUrl, { redirect: "manual" });
      expect(again.status).toBe(401);
    });

    it("creates a project from the sample and lists it on the bookshelf", async () => {
      await page.getByTestId("new-name").fill("tide");
      await page.getByTestId("new-sample").check();
      await page.getByTestId("new-submit").click();
      await page.waitForURL(/#\/p\/tide\/files$/);
      const chapterLink = page.locator(`a[data-path="${CHAPTER}"]`);
      await chapterLink.waitFor();
      // The tree shows each chapter's word count.
      expect(
        Number((await chapterLink.getByTestId("chapter-words").textContent())?.replace(/\D/g, "")),
      ).toBeGreaterThan(50);
      await page.getByTestId("nav-bookshelf").click();
      await until(() => page.getByTestId("project-tide").textContent()).toBe("The Tide-Bell Keeper");
      await shot(page, "02-bookshelf");
    });

    it("opens a chapter, edits and saves it; a file changed underneath shows a conflict diff", async () => {
      await page.getByTestId("project-tide").click();
      await page.locator(`a[data-path="${CHAPTER}"]`).click();
      const editor = page.getByTestId("editor");
      await until(() => editorText(editor)).toContain(OPENING);
      const original = await editorText(editor);
      const mine = `${original}\nMira wrote the day's date in the margin.\n`;
      await editor.fill(mine);
      await until(() => page.getByTestId("save-status").textContent()).toBe("Unsaved changes");
      await page.getByTestId("save").click();
      await until(() => page.getByTestId("save-status").textContent()).toBe("Saved");
      expect(readFileSync(chapterPath(), "utf8")).toBe(mine);
      await page.getByTestId("preview-tab").click();
      await until(() => page.getByTestId("rendered").locator("h1").textContent()).toBe(
        "Chapter 1 — The Drowned Bell",
      );
      await shot(page, "03-files-preview");
      await page.getByRole("tab", { name: "Edit" }).click();
      await shot(page, "04-files-editor");

      // Unsaved text survives opening another file (and is marked in the tree) until saved or undone.
      await editor.fill(`${mine}Unsaved thought.\n`);
      await page.locator('a[data-path="manuscript/02-low-water/index.md"]').click();
      await until(() => editorText(editor)).not.toContain("Unsaved thought.");
      expect(await page.locator(`a[data-path="${CHAPTER}"]`).getByTestId("unsaved-mark").count()).toBe(1);
      await page.locator(`a[data-path="${CHAPTER}"]`).click();
      await until(() => editorText(editor)).toContain("Unsaved thought.");
      await editor.fill(mine);
      await until(() => page.getByTestId("save-status").textContent()).not.toBe("Unsaved changes");
      expect(await page.getByTestId("unsaved-mark").count()).toBe(0);

      // A hand edit on disk, then the user's own change: saving shows both as a diff.
      writeFileSync(chapterPath(), mine.replace("Tomas was asleep", "Tomas was awake"));
      await editor.fill(mine.replace("two buckets of eels", "three buckets of eels"));
      await page.getByTestId("save").click();
      const diff = page.getByTestId("conflict-diff");
      await diff.waitFor();
      expect(await diff.locator(".diff-del").allTextContents()).toEqual(
        expect.arrayContaining([expect.stringContaining("Tomas was awake")]),
      );
      expect(await diff.locator(".diff-add").allTextContents()).toEqual(
        expect.arrayContaining([expect.stringContaining("three buckets of eels")]),
      );
      await shot(page, "05-files-conflict");
      await page.getByTestId("take-theirs").click();
      await until(() => editorText(editor)).toContain("Tomas was awake");
      await until(() => page.getByTestId("conflict").count()).toBe(0);

      // A new chapter file; creating it again once it has text is refused, never overwriting it.
      const third = "manuscript/03-the-bell-road/index.md";
      await page.getByTestId("new-file").fill(third);
      await page.getByTestId("new-file").press("Enter");
      await until(() => page.getByTestId("open-path").textContent()).toBe(third);
      await until(() => editorText(editor)).toBe("# The Bell Road\n");
      expect(readFileSync(join(ws, "tide", third), "utf8")).toBe("# The Bell Road\n");
      await until(() =>
        page.locator(`a[data-path="${third}"]`).getByTestId("chapter-words").textContent(),
      ).toBe("0");
      await editor.fill("# The Bell Road\n\nMira follows the creek.\n");
      await page.getByTestId("save").click();
      await until(() => page.getByTestId("save-status").textContent()).toBe("Saved");
      await page.getByTestId("new-file").fill(third);
      await page.getByTestId("new-file").press("Enter");
      await until(() => page.getByRole("alert").count()).toBe(1);
      expect(readFileSync(join(ws, "tide", third), "utf8")).toBe(
        "# The Bell Road\n\nMira follows the creek.\n",
      );
    });

    it("runs a discuss-mode chat: the write stops with a diff, approving runs it, the editor shows it", async () => {
      await page.getByTestId("nav-agent").click();
      await until(() => page.getByTestId("new-model").locator("option").allTextContents()).toEqual(
        expect.arrayContaining(["cloud/gpt-test (key NBOOK_BROWSER_TEST_KEY not set)"]),
      );
      expect(await page.getByTestId("new-profile").locator("option").allTextContents()).not.toContain(
        "memory.curator",
      );
      await page.getByTestId("new-mode").selectOption("discuss");
      await page.getByTestId("new-session").click();
      await page.waitForURL(/#\/p\/tide\/agent\/\d+$/);
      const composer = page.getByTestId("composer");
      await until(() => page.getByTestId("mode-discuss").getAttribute("aria-pressed")).toBe("true");
      // Shift+Tab in the composer cycles the mode: discuss → plan → normal → discuss.
      for (const next of ["plan", "normal", "discuss"]) {
        await composer.press("Shift+Tab");
        await until(() => page.getByTestId(`mode-${next}`).getAttribute("aria-pressed")).toBe("true");
      }

      await composer.fill("Tighten the opening line of chapter 1.");
      await composer.press("Enter");
      const bubble = page.getByTestId("approval");
      await bubble.waitFor();
      const preview = bubble.getByTestId("preview");
      await until(() => preview.locator(".diff-del").allTextContents()).toEqual(
        expect.arrayContaining([expect.stringContaining(OPENING)]),
      );
      expect(await preview.locator(".diff-add").allTextContents()).toEqual(
        expect.arrayContaining([expect.stringContaining(EDITED)]),
      );
      // Stopped: nothing is written before the approval.
      expect(readFileSync(chapterPath(), "utf8")).toContain(OPENING);
      await until(() => page.getByTestId("tasks").textContent()).toContain("Tighten the opening line");
      await shot(page, "06-agent-approval");
      // Approval bubbles, pending and settled, hold no serious or critical axe-core finding.
      expect(severe(await axeFindings(page), "06-agent-approval")).toEqual([]);

      // A second tab has the chapter open in the editor while the agent waits.
      const tab = await page.context().newPage();
      tab.on("pageerror", (e) => pageErrors.push(e.message));
      await tab.goto(`${server.origin}/#/p/tide/files/${encodeURIComponent(CHAPTER)}`);
      await until(() => editorText(tab.getByTestId("editor"))).toContain(OPENING);

      await bubble.getByTestId("approve").click();
      await until(() => page.getByTestId("assistant").allTextContents()).toEqual(
        expect.arrayContaining(["Done: the opening now says the fog lifted."]),
      );
      expect(readFileSync(chapterPath(), "utf8")).toContain(EDITED);
      await until(() => page.getByTestId("approval").getByTestId("approve").count()).toBe(0);
      // The context panel: what the latest call was sent, and the session's two calls counted.
      await until(() => page.getByTestId("sections").textContent()).toContain("tool definitions");
      await until(() => page.getByTestId("usage-session").textContent()).toMatch(/: 2 · /);
      expect(await page.getByTestId("call-select").locator("option").count()).toBe(2);
      // The edit's card carries the diff it made.
      const card = page.getByTestId("tool-card").filter({ hasText: "edit manuscript/" });
      await card.locator("summary").click();
      expect(await card.locator(".diff-add").allTextContents()).toEqual(
        expect.arrayContaining([expect.stringContaining(EDITED)]),
      );
      await shot(page, "07-agent-done");
      // Approval bubbles, pending and settled, hold no serious or critical axe-core finding.
      expect(severe(await axeFindings(page), "07-agent-done")).toEqual([]);

      // The open editor picked the change up by itself (the workspace stream), and says so.
      await until(() => editorText(tab.getByTestId("editor"))).toContain(EDITED);
      expect(await tab.getByTestId("save-status").textContent()).toMatch(/^Changed elsewhere/);
      await shot(tab, "08-files-after-agent");
      await tab.close();
      await page.getByTestId("nav-files").click();
      await page.locator(`a[data-path="${CHAPTER}"]`).click();
      await until(() => editorText(page.getByTestId("editor"))).toContain(EDITED);
    });

    it("answers the agent's question inline, and aborts a run", async () => {
      await page.getByTestId("nav-agent").click();
      await page.getByTestId("sessions").locator("a").first().click();
      await until(() => page.getByTestId("assistant").allTextContents()).toEqual(
        expect.arrayContaining(["Done: the opening now says the fog lifted."]),
      );
      const composer = page.getByTestId("composer");
      await composer.fill("Name the ferryman.");
      await composer.press("Enter");
      const question = page.locator('[data-testid="approval"][data-kind="user_input"]');
      await until(() => question.getByTestId("preview").textContent()).toContain(
        "Which name should the ferryman have?",
      );
      await shot(page, "09-agent-question");
      await question.getByTestId("answer").fill("Oren");
      await question.getByTestId("answer").press("Enter");
      await until(() => page.getByTestId("assistant").allTextContents()).toEqual(
        expect.arrayContaining(["The ferryman is Oren."]),
      );

      await composer.fill("Listen to the bells.");
      await composer.press("Enter");
      await until(() => page.getByTestId("abort").isEnabled()).toBe(true);
      await page.getByTestId("abort").click();
      await until(() => page.getByTestId("note").allTextContents()).toEqual(
        expect.arrayContaining([expect.stringMatching(/^aborted/)]),
      );
      await until(() => page.getByTestId("abort").isEnabled()).toBe(false);
      await shot(page, "10-agent-aborted");
    });

    it("shows a background command in Jobs with its progress, and cancels it", async () => {
      await page.getByTestId("mode-normal").click();
      await until(() => page.getByTestId("mode-normal").getAttribute("aria-pressed")).toBe("true");
      const composer = page.getByTestId("composer");
      await composer.fill("Ring the bells in the background.");
      await composer.press("Enter");
      await until(() => page.getByTestId("assistant").allTextContents()).toEqual(
        expect.arrayContaining(["The bells ring on."]),
      );
      await page.getByTestId("nav-jobs").click();
      const job = page.getByTestId("job").first();
      await until(() => job.textContent()).toContain("running");
      await job.click();
      await until(() => page.getByTestId("job-progress").textContent()).toContain("ringing");
      await shot(page, "11-jobs-running");
      await page.getByTestId("cancel-job").click();
      await until(() => page.getByTestId("job-status").textContent()).toBe("cancelled");
      await until(() => job.textContent()).toContain("cancelled");
      await shot(page, "12-jobs-cancelled");
    });

    it("rejects a write with a reason the agent gets", async () => {
      await page.getByTestId("nav-agent").click();
      await page.getByTestId("new-mode").selectOption("discuss");
      await page.getByTestId("new-session").click();
      await page.waitForURL(/#\/p\/tide\/agent\/2$/);
      await until(() => page.getByTestId("mode-discuss").getAttribute("aria-pressed")).toBe("true");
      const composer = page.getByTestId("composer");
      await composer.fill("Rename the bell.");
      await composer.press("Enter");
      const bubble = page.locator('[data-testid="approval"]:not(.settled)');
      await until(() => bubble.getByTestId("preview").textContent()).toContain("the Drowned Bell rang");
      await bubble.getByRole("textbox").fill("Keep the old name");
      await bubble.getByTestId("reject").click();
      await until(() => page.getByTestId("assistant").allTextContents()).toEqual(
        expect.arrayContaining(["Understood, I left it."]),
      );
      expect(readFileSync(chapterPath(), "utf8")).not.toContain("the Drowned Bell rang");
      expect(await page.getByTestId("settled").textContent()).toBe("Rejected");
      await shot(page, "13-agent-rejected");
      // Approval bubbles, pending and settled, hold no serious or critical axe-core finding.
      expect(severe(await axeFindings(page), "13-agent-rejected")).toEqual([]);
    });

    it("shows a subject's state at two calendar times", async () => {
      await page.getByTestId("nav-world").click();
      await page.locator('a[data-subject="mira"]').click();
      await page.getByTestId("at").fill("1 Thaw 91 AL, 00:00");
      await page.getByTestId("at2").fill("12 Fog 91 AL, 12:40");
      await page.getByTestId("show-state").click();
      const moodAt = (table: string) =>
        page
          .getByTestId(table)
          .locator("tr", { has: page.locator("th", { hasText: /^mood$/ }) })
          .locator("td");
      await until(() => moodAt("state-a").textContent()).toBe("calm");
      await until(() => moodAt("state-b").textContent()).toBe("uneasy");
      expect(await page.getByTestId("state-a").locator("caption").textContent()).toBe("1 Thaw 91 AL, 00:00");
      expect(await page.getByTestId("history").locator("li").count()).toBeGreaterThan(3);
      await shot(page, "14-world");
    });

    it("shows a world issue with its explanation", async () => {
      // A change whose base is later deleted: the increment is left without a number (E1).
      writeFileSync(join(dir, "issue.js"), ISSUE_SCRIPT);
      const exec = runNbook(["world", "exec", join(dir, "issue.js")], { cwd: join(ws, "tide") });
      expect(exec.status, exec.stderr).toBe(0);
      await page.getByTestId("nav-world").click();
      await page.locator('a[data-subject="eighth-bell"]').click();
      const issue = page.getByTestId("issue");
      await until(() => issue.locator("summary").textContent()).toContain("E1");
      await issue.locator("summary").click();
      await until(() => issue.locator("dd").first().textContent()).toBe(
        "An increment found no finite number at its path, or an append found no array.",
      );
      await shot(page, "15-world-issue");
    });

    it("shows a chapter's writer brief in the plot view", async () => {
      await page.getByTestId("nav-plot").click();
      await page.getByTestId("plot-tree").getByText("The Drowned Bell").click();
      const brief = page.getByTestId("brief");
      await until(() => brief.textContent()).toContain("Chapter: The Drowned Bell");
      expect(await brief.locator("h2").allTextContents()).toEqual(
        expect.arrayContaining(["Goal and landing", "Information control (required)"]),
      );
      await shot(page, "16-plot-brief");
      await page.getByTestId("tab-promises").click();
      await until(() => page.getByTestId("promise").count()).toBeGreaterThan(0);
      await shot(page, "17-plot-promises");
    });

    it("follows a Chinese project's language, and switches the interface by hand", async () => {
      // Created from the bookshelf with the keyboard alone: Tab to the fields, Space, Enter.
      await page.getByTestId("nav-bookshelf").click();
      await page.getByTestId("new-name").focus();
      await page.keyboard.type("chao");
      await page.keyboard.press("Tab");
      await page.keyboard.press("Tab");
      await page.keyboard.press("ArrowDown"); // Language: English → 中文
      await page.keyboard.press("Tab");
      await page.keyboard.press("Space"); // from the sample
      await page.keyboard.press("Tab");
      await page.keyboard.press("Enter");
      await page.waitForURL(/#\/p\/chao\/files$/);
      await until(() => page.getByTestId("nav-bookshelf").textContent()).toContain("书架");
      await until(() =>
        page.locator('a[data-path="manuscript/01-the-drowned-bell/index.md"] .count').textContent(),
      ).toMatch(/\d/);
      await shot(page, "18-files-zh-project");
      await page.goto(`${server.origin}/#/p/tide/plot/1`);
      await until(() => page.getByTestId("nav-bookshelf").textContent()).toContain("Bookshelf");
      await page.getByTestId("lang").selectOption("zh");
      await until(() => page.getByTestId("nav-bookshelf").textContent()).toContain("书架");
      await shot(page, "19-plot-zh");
    });

    it("answers a workflow run's question in Jobs, and the server drives the run to its end", async () => {
      writeFileSync(
        join(dir, "ask.js"),
        `export const title = "Bell check";
export default async function run(wf) {
  const ring = await wf.ask({ kind: "approve", title: "Ring the bells at dawn?", key: "ring" });
  return { ring };
}
`,
      );
      const started = runNbook(["workflows", "run", "--file", join(dir, "ask.js"), "--json"], {
        cwd: join(ws, "tide"),
      });
      expect(started.status, started.stderr).toBe(0);
      const runId = (JSON.parse(started.stdout) as { run: { id: string; status: string } }).run.id;
      // Runs have no stream events: the list is read when the screen opens.
      await page.goto(`${server.origin}/#/p/tide/files`);
      await page.getByTestId("nav-jobs").click();
      await page.locator(`[data-testid="run"][data-id="${runId}"]`).click();
      const detail = page.getByTestId("run-detail");
      await until(() => detail.getAttribute("data-status")).toBe("waiting");
      await page.locator('[data-testid="ask"][data-key="ring"] input').first().check();
      await shot(page, "12b-workflow-ask");
      await page.getByTestId("answer-run").click();
      await until(() => detail.getAttribute("data-status")).toBe("completed");
    });

    it("made no request outside the server and raised no page error", () => {
      expect(requests.length).toBeGreaterThan(0);
      expect(requests.filter((u) => !u.startsWith(`${server.origin}/`))).toEqual([]);
      expect(pageErrors).toEqual([]);
    });
  });
}
