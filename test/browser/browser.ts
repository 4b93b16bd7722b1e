// What the browser tests share: Debian's Chromium driven by playwright-core (no browser
// download), and `nbook serve` started as a real process on 127.0.0.1 with any free port.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Locator, type Page } from "playwright-core";
import { NBOOK_BIN, runNbook } from "../helpers.js";

/** The Chromium the tests drive: Debian's package (`apt-get install chromium fonts-wqy-microhei`). */
export const CHROMIUM = process.env.NBOOK_CHROMIUM ?? "/usr/bin/chromium";

/** Why the browser tests cannot run here, or null when they can. */
export function browserMissing(): string | null {
  return existsSync(CHROMIUM)
    ? null
    : `${CHROMIUM} not found: install it with \`apt-get install chromium fonts-wqy-microhei\` (.ci/run does)`;
}

/** Where screenshots go: git-ignored, kept after the run for a person to look at. */
export const SHOT_DIR = fileURLToPath(new URL("../../.tmp/browser/", import.meta.url));

/** Save a screenshot of the page as `<name>.png` in SHOT_DIR. */
export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SHOT_DIR, `${name}.png`), fullPage: false });
}

/** Headless Chromium. As root (CI, this machine) its own sandbox cannot start, hence --no-sandbox. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--lang=en-GB"],
  });
}

/** A running `nbook serve`: its origin, the login URL it printed, and how to stop it. */
export interface ServeProcess {
  origin: string;
  loginUrl: string;
  token: string;
  output: () => string;
  stop: () => Promise<void>;
}

/** Start `nbook serve --port 0` on `workspace` and wait for the login URL it prints. */
export function startServe(workspace: string, extraArgs: string[] = []): Promise<ServeProcess> {
  const child: ChildProcess = spawn(
    NBOOK_BIN,
    ["serve", "--workspace", workspace, "--port", "0", ...extraArgs],
    {
      cwd: workspace,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  const output = () => out;
  child.stdout!.on("data", (d: Buffer) => {
    out += d.toString("utf8");
  });
  child.stderr!.on("data", (d: Buffer) => {
    out += d.toString("utf8");
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  return new Promise((resolve, reject) => {
    const onData = () => {
      const m = /Open (http:\/\/127\.0\.0\.1:\d+\/login\?token=(\S+))/.exec(out);
      if (!m) return;
      child.stdout!.off("data", onData);
      resolve({ origin: new URL(m[1]!).origin, loginUrl: m[1]!, token: m[2]!, output, stop });
    };
    child.stdout!.on("data", onData);
    child.once("exit", (code) =>
      reject(new Error(`nbook serve exited (${code}) before printing its URL:\n${out}`)),
    );
  });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** One axe-core finding: the rule, how bad, and the elements (CSS selectors) it was found on. */
export interface AxeFinding {
  id: string;
  impact: "minor" | "moderate" | "serious" | "critical" | null;
  nodes: string[][];
}

/**
 * Run axe-core over the page as it is. Evaluated through the DevTools protocol, so the workbench's
 * CSP (script-src 'self') stays on; a run that checked nothing is an error, not a pass.
 */
export async function axeFindings(page: Page): Promise<AxeFinding[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    type Result = { id: string; impact: AxeFinding["impact"]; nodes: { target: string[] }[] };
    const axe = globalThis as unknown as {
      axe: { run: (c: unknown) => Promise<{ violations: Result[]; passes: unknown[] }> };
      document: unknown;
    };
    const r = await axe.axe.run(axe.document);
    if (r.passes.length === 0) throw new Error("axe-core checked nothing");
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target) }));
  });
}

/** The serious and critical findings, one line each (what the browser tests allow none of). */
export const severe = (findings: AxeFinding[], where: string): string[] =>
  findings
    .filter((f) => f.impact === "serious" || f.impact === "critical")
    .map((f) => `${where}: ${f.id} (${f.impact}) at ${JSON.stringify(f.nodes)}`);

// The prose editor is CodeMirror: its text and selection are read from the view its content
// element belongs to (CodeMirror keeps it there; the version is pinned in package.json), not from
// the DOM, which holds only the lines in view.
type EditorView = {
  state: { doc: { toString(): string }; selection: { main: { from: number; to: number } } };
};

/** The prose editor's whole text (`editor` is its `data-testid="editor"` content element). */
export function editorText(editor: Locator): Promise<string> {
  return editor.evaluate((el) => {
    const v = (el as unknown as { cmTile: { root: { view: EditorView } } }).cmTile.root.view;
    return v.state.doc.toString();
  });
}

/** The text the prose editor has selected. */
export function editorSelection(editor: Locator): Promise<string> {
  return editor.evaluate((el) => {
    const v = (el as unknown as { cmTile: { root: { view: EditorView } } }).cmTile.root.view;
    const r = v.state.selection.main;
    return v.state.doc.toString().slice(r.from, r.to);
  });
}

/** A workspace with the sample project `tide`, served, and a signed-in Chromium page on it. */
export interface SampleWorkbench {
  /** The temp folder holding the workspace (and anything a test puts beside it). */
  dir: string;
  ws: string;
  /** The project's folder. */
  project: string;
  server: ServeProcess;
  browser: Browser;
  page: Page;
  /** Errors the page threw. */
  pageErrors: string[];
  close(): Promise<void>;
}

/**
 * The set-up most browser tests share: `nbook init`, the sample as project `tide`, `nbook serve`
 * (with `serveArgs(dir)`, e.g. a script written beside the workspace), Chromium in en-GB, signed in.
 */
export async function sampleWorkbench(opts: {
  prefix: string;
  serveArgs?: (dir: string) => string[];
  viewport?: { width: number; height: number };
}): Promise<SampleWorkbench> {
  const dir = mkdtempSync(join(tmpdir(), `nbook-${opts.prefix}-`));
  const ws = join(dir, "ws");
  const must = (r: { status: number | null; stderr: string }) => {
    if (r.status !== 0) throw new Error(r.stderr);
  };
  must(runNbook(["init", ws], { cwd: dir }));
  must(runNbook(["project", "create", "tide", "--sample", "--workspace", ws], { cwd: dir }));
  const server = await startServe(ws, opts.serveArgs?.(dir) ?? []);
  const browser = await launchChromium();
  const context = await browser.newContext({
    viewport: opts.viewport ?? { width: 1366, height: 900 },
    locale: "en-GB",
  });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await page.goto(server.loginUrl);
  await page.getByTestId("project-tide").waitFor();
  return {
    dir,
    ws,
    project: join(ws, "tide"),
    server,
    browser,
    page,
    pageErrors,
    async close() {
      await browser.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
