import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkLayers } from "../../scripts/check-layers.mjs";

const CHECKER = fileURLToPath(new URL("../../scripts/check-layers.mjs", import.meta.url));

let root: string;

function write(rel: string, text: string): void {
  const file = join(root, rel);
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, text);
}

/** The checker's report on the planted tree, one text. */
const problems = (): string => checkLayers(root).problems.join("\n");

/** `npm run check:layers` on the planted tree: its exit status and output. */
function run(): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [CHECKER, "--root", root], { encoding: "utf8" });
  return { status: r.status, out: r.stdout + r.stderr };
}

// A small tree layered as src/ is: core at the bottom, a domain, the tools above it and the harness
// on top, knowing tools only through the contract.
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "nbook-layers-"));
  write("core/errors.ts", "export class NbError extends Error {}\n");
  write(
    "world/world.ts",
    'import { NbError } from "../core/errors.js";\nexport const world = () => new NbError();\n',
  );
  write("tools/types.ts", "export interface ToolDef { key: string }\n");
  write(
    "tools/dispatch.ts",
    'import type { ToolDef } from "./types.js";\nexport const run = (t: ToolDef) => t.key;\n',
  );
  write(
    "tools/world/index.ts",
    'import { world } from "../../world/world.js";\nexport const tool = { key: "w", world };\n',
  );
  write("harness/step.ts", 'import { run } from "../tools/dispatch.js";\nexport const step = run;\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("the layering check", () => {
  it("passes a tree whose folders import one way", () => {
    expect(checkLayers(root)).toEqual({ folders: 3, problems: [] });
  });

  it("fails on a value-import cycle between top-level folders and names the folders and the imports", () => {
    const clean = run();
    expect(clean.out).toContain("no value-import cycle");
    expect(clean.status).toBe(0);
    write("world/describe.ts", 'import { run } from "../tools/dispatch.js";\nexport const describe = run;\n');
    const { status, out } = run();
    expect(status).toBe(1);
    expect(out).toContain("value-import cycle between src/ folders tools, world");
    expect(out).toContain("world -> tools: src/world/describe.ts imports ../tools/dispatch.js");
    expect(out).toContain("tools -> world: src/tools/world/index.ts imports ../../world/world.js");
  });

  it("lets type-only imports and unit tests point anywhere", () => {
    write("world/types.ts", 'import type { ToolDef } from "../tools/types.js";\nexport type T = ToolDef;\n');
    write("world/reexport.ts", 'export type { ToolDef } from "../tools/types.js";\n');
    write("world/world.test.ts", 'import { run } from "../tools/dispatch.js";\nrun({ key: "x" });\n');
    expect(problems()).toBe("");
  });

  it("counts dynamic imports and inline-type import lists as value imports", () => {
    write("world/lazy.ts", 'export const lazy = () => import("../tools/dispatch.js");\n');
    expect(problems()).toContain("world -> tools: src/world/lazy.ts imports ../tools/dispatch.js");
    rmSync(join(root, "world/lazy.ts"));
    write("world/inline.ts", 'import { type ToolDef } from "../tools/types.js";\nexport type T = ToolDef;\n');
    expect(problems()).toContain("world -> tools: src/world/inline.ts imports ../tools/types.js");
  });

  it("knows the tool group folders from the group table: the harness may import the contract's own folders", () => {
    write("tools/groups.ts", 'export const load = () => import("./world/index.js");\n');
    write("tools/pipeline/decide.ts", 'export const decide = () => "run";\n');
    write(
      "harness/decide.ts",
      'import { decide } from "../tools/pipeline/decide.js";\nexport const d = decide;\n',
    );
    expect(checkLayers(root).problems).toEqual([]);
    write("harness/world.ts", 'import { tool } from "../tools/world/index.js";\nexport const t = tool;\n');
    expect(checkLayers(root).problems).toEqual([
      "src/harness imports a tool group: src/harness/world.ts imports ../tools/world/index.js",
    ]);
  });

  it("fails when the harness imports a tool group's folder, with no cycle involved", () => {
    write("harness/world.ts", 'import { tool } from "../tools/world/index.js";\nexport const t = tool;\n');
    expect(checkLayers(root).problems).toEqual([
      "src/harness imports a tool group: src/harness/world.ts imports ../tools/world/index.js",
    ]);
  });
});

describe("src/ itself", () => {
  it("has no value-import cycle between its folders, and the harness imports no tool group", () => {
    const src = fileURLToPath(new URL("../../src", import.meta.url));
    expect(checkLayers(src).problems).toEqual([]);
  });
});
