// The web workbench's part of the build: dist/workbench/ is built with the CLI's code, survives the CLI
// build's clean-up, and is rebuilt when (and only when) web/ changes.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensureBuilt } from "../../scripts/build.mjs";
import { isBuildCurrent, isDistCurrent, isWebCurrent } from "../../scripts/build-stamp.mjs";

let root: string;

/** Write a file of the throw-away repository, dated `secondsAgo`, as an editor saving it would. */
function write(rel: string, text: string, secondsAgo = 0): void {
  const file = join(root, rel);
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, text);
  const t = Date.now() / 1000 - secondsAgo;
  utimesSync(file, t, t);
}

/** The text of the one script the web build emitted. */
function bundle(): string {
  const assets = join(root, "dist", "workbench", "assets");
  const js = readdirSync(assets).filter((f) => f.endsWith(".js"));
  expect(js).toHaveLength(1);
  return readFileSync(join(assets, js[0]!), "utf8");
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "nbook-webbuild-"));
  // As the real repository's: without it Vite loads web/vite.config.ts as CommonJS and warns.
  write("package.json", '{ "type": "module" }\n', 60);
  write("src/word.ts", 'export const WORD: string = "hello";\n', 60);
  write(
    "web/index.html",
    '<!doctype html><html><body><div id="app"></div><script type="module" src="/src/main.ts"></script></body></html>\n',
    60,
  );
  write("web/src/main.ts", 'document.getElementById("app")!.textContent = "first page";\n', 60);
  write("web/vite.config.ts", "export default { logLevel: 'silent' };\n", 60);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("the web workbench build", () => {
  it("builds web/ into dist/workbench/ beside the compiled sources", async () => {
    expect(isWebCurrent(root)).toBe(false);
    expect(await ensureBuilt(root)).toBe(true);
    expect(isBuildCurrent(root)).toBe(true);
    expect(existsSync(join(root, "dist", "word.js"))).toBe(true);
    expect(readFileSync(join(root, "dist", "workbench", "index.html"), "utf8")).toMatch(
      /\/assets\/index-[\w-]+\.js/,
    );
    expect(bundle()).toContain("first page");
    expect(await ensureBuilt(root)).toBe(false);
  });

  it("keeps the compiled src/web/ (the web tools' code) apart from the workbench, whichever builds last", async () => {
    write("src/web/fetch/index.ts", 'export const FETCH: string = "fetch";\n', 60);
    await ensureBuilt(root);
    write("web/src/main.ts", 'document.getElementById("app")!.textContent = "second page";\n');
    expect(await ensureBuilt(root)).toBe(true);
    expect(readFileSync(join(root, "dist", "web", "fetch", "index.js"), "utf8")).toContain("fetch");
    expect(bundle()).toContain("second page");
  });

  it("a change under src/ rebuilds the CLI's code and keeps dist/workbench/", async () => {
    await ensureBuilt(root);
    const webStamp = join(root, "dist", "workbench", ".build-stamp");
    const builtAt = statSync(webStamp).mtimeMs;
    write("src/word.ts", 'export const WORD: string = "goodbye";\n');
    expect(isDistCurrent(root)).toBe(false);
    expect(isWebCurrent(root)).toBe(true);
    expect(await ensureBuilt(root)).toBe(true);
    expect(readFileSync(join(root, "dist", "word.js"), "utf8")).toContain("goodbye");
    // The workbench was neither deleted by the clean-up nor built again.
    expect(statSync(webStamp).mtimeMs).toBe(builtAt);
    expect(bundle()).toContain("first page");
    expect(isBuildCurrent(root)).toBe(true);
  });

  it("a change under web/ makes the build stale and rebuilds the workbench", async () => {
    await ensureBuilt(root);
    write("web/src/main.ts", 'document.getElementById("app")!.textContent = "second page";\n');
    expect(isDistCurrent(root)).toBe(true);
    expect(isWebCurrent(root)).toBe(false);
    expect(await ensureBuilt(root)).toBe(true);
    expect(bundle()).toContain("second page");
    expect(bundle()).not.toContain("first page");
    expect(isBuildCurrent(root)).toBe(true);
  });

  it("a source that does not compile fails the build but still builds the workbench", async () => {
    write("src/word.ts", "export const WORD: string = ;\n");
    await expect(ensureBuilt(root)).rejects.toThrow(/word\.ts/);
    expect(isDistCurrent(root)).toBe(false);
    expect(isWebCurrent(root)).toBe(true);
    expect(bundle()).toContain("first page");
  });
});
