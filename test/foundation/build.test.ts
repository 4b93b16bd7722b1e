import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildDist, ensureBuilt } from "../../scripts/build.mjs";
import { isBuildCurrent } from "../../scripts/build-stamp.mjs";

let root: string;

/** Write a source file with a modification time of its own, as an editor saving it later would. */
function write(rel: string, text: string, secondsAgo = 0): void {
  const file = join(root, "src", rel);
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, text);
  const t = Date.now() / 1000 - secondsAgo;
  utimesSync(file, t, t);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "nbook-build-"));
  write(
    "greet.ts",
    'import { WORD } from "./word.js";\nexport const greet = (n: string): string => WORD + " " + n;\n',
    60,
  );
  write("word.ts", 'export const WORD: string = "hello";\n', 60);
  write("worker/child.mjs", "export const child = 1;\n", 60);
  write("worker/where.ts", 'export const CHILD = new URL("./child.mjs", import.meta.url);\n', 60);
  write("greet.test.ts", "this is not even TypeScript\n", 60);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const dist = (rel: string) => join(root, "dist", rel);

describe("the dist/ build", () => {
  it("compiles every source file in place, copies other files beside them and leaves tests out", async () => {
    expect(isBuildCurrent(root)).toBe(false);
    expect(await ensureBuilt(root)).toBe(true);
    expect(isBuildCurrent(root)).toBe(true);
    const { greet } = await import(pathToFileURL(dist("greet.js")).href);
    expect(greet("bell")).toBe("hello bell");
    // A relative URL resolves in dist/ as in src/: the runtime asset was copied next to its user.
    const { CHILD } = await import(pathToFileURL(dist("worker/where.js")).href);
    expect(existsSync(CHILD)).toBe(true);
    expect(existsSync(dist("greet.test.js"))).toBe(false);
    expect(await ensureBuilt(root)).toBe(false);
  });

  it("rebuilds after an edit, and drops what a deleted source left", async () => {
    await ensureBuilt(root);
    write("word.ts", 'export const WORD: string = "goodbye";\n');
    rmSync(join(root, "src", "worker", "child.mjs"));
    expect(isBuildCurrent(root)).toBe(false);
    expect(await ensureBuilt(root)).toBe(true);
    expect(readFileSync(dist("word.js"), "utf8")).toContain("goodbye");
    expect(existsSync(dist("worker/child.mjs"))).toBe(false);
    expect(isBuildCurrent(root)).toBe(true);
  });

  it("builds the same from a relative path to the repository", async () => {
    await buildDist(relative(process.cwd(), root));
    expect(existsSync(dist("greet.js"))).toBe(true);
    expect(existsSync(dist("worker/child.mjs"))).toBe(true);
    expect(isBuildCurrent(root)).toBe(true);
  });

  it("a new source file makes the build stale", async () => {
    await ensureBuilt(root);
    write("extra.ts", "export const x = 1;\n");
    expect(isBuildCurrent(root)).toBe(false);
  });

  it("concurrent builds take turns: one builds, the others find it current", async () => {
    write("word.ts", 'export const WORD: string = "again";\n');
    const built = await Promise.all([ensureBuilt(root), ensureBuilt(root), ensureBuilt(root)]);
    expect(built.filter(Boolean)).toHaveLength(1);
    expect(isBuildCurrent(root)).toBe(true);
  });

  it("a source that does not compile fails the build and leaves dist/ stale", async () => {
    await ensureBuilt(root);
    write("word.ts", "export const WORD: string = ;\n");
    await expect(buildDist(root)).rejects.toThrow(/word\.ts/);
    expect(isBuildCurrent(root)).toBe(false);
    expect(existsSync(dist(".build-lock"))).toBe(false);
  });
});
