import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { makeTestBed, type TestBed } from "../helpers.js";
import { workflowSource } from "./fixtures.js";

// Every evaluation of a workflow module in the sandbox, by its source: the real sandbox runs it.
const evaluated: string[] = [];
const SANDBOX = "../../src/workflows/sandbox/index.js";
type Sandbox = typeof import("../../src/workflows/sandbox/index.js");
const sandboxes: Sandbox[] = [];

/** The catalog as a new process has it: nothing in memory, every module loaded afresh. */
async function freshCatalog(): Promise<typeof import("../../src/workflows/catalog.js")> {
  vi.resetModules();
  vi.doMock(SANDBOX, async (importOriginal) => {
    const real = await importOriginal<Sandbox>();
    sandboxes.push(real);
    return {
      ...real,
      describeWorkflowModule: (...args: Parameters<Sandbox["describeWorkflowModule"]>) => {
        evaluated.push(args[0]);
        return real.describeWorkflowModule(...args);
      },
    };
  });
  return import("../../src/workflows/catalog.js");
}

function put(root: string, key: string, source: string): string {
  const dir = join(root, ".nbook", "agent", "workflows", key);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "workflow.js");
  writeFileSync(file, source);
  return file;
}

const HOSTILE = `export const title = "spin";\nfor (;;) {}\n`;
const THROWS = `export const title = "x";\nconst a = 1;\nthrow new Error("boom");\n`;

let bed: TestBed;
beforeEach(() => {
  bed = makeTestBed();
  evaluated.length = 0;
});
afterEach(() => bed.cleanup());
afterAll(async () => {
  for (const s of sandboxes) await s.closeWorkflowSandbox();
});

describe("broken workflow files are remembered by identity", () => {
  it("a hostile project workflow.js is evaluated once, not again by the next process, until it changes", async () => {
    put(bed.project.root, "spin", HOSTILE);
    const throws = put(bed.project.root, "throws", THROWS);
    const count = (source: string) => evaluated.filter((s) => s === source).length;

    const first = await (await freshCatalog()).listWorkflows(bed.ws, bed.project);
    expect(first.find((w) => w.key === "spin")).toMatchObject({ status: "broken", layer: "project" });
    expect(first.find((w) => w.key === "spin")?.reason).toMatch(/timed out|ran longer than/);
    expect(first.find((w) => w.key === "throws")).toMatchObject({ status: "broken", line: 3 });
    expect([count(HOSTILE), count(THROWS)]).toEqual([1, 1]);

    // The next process: nothing in memory, and still no evaluation; the same verdicts.
    const next = await freshCatalog();
    const second = await next.listWorkflows(bed.ws, bed.project);
    expect([count(HOSTILE), count(THROWS)]).toEqual([1, 1]);
    expect(second.find((w) => w.key === "spin")).toEqual(first.find((w) => w.key === "spin"));
    expect(second.find((w) => w.key === "throws")).toEqual(first.find((w) => w.key === "throws"));

    // A changed file is judged again: rewritten, or only touched.
    const fixed = workflowSource("Fixed");
    writeFileSync(throws, fixed);
    const third = await (await freshCatalog()).listWorkflows(bed.ws, bed.project);
    expect(count(fixed)).toBe(1);
    expect(third.find((w) => w.key === "throws")?.status).toBe("ok");
    writeFileSync(throws, THROWS);
    const t = new Date(Date.now() - 60_000);
    utimesSync(throws, t, t);
    await (await freshCatalog()).listWorkflows(bed.ws, bed.project);
    expect(count(THROWS)).toBe(2);
    expect(count(HOSTILE)).toBe(1);
  }, 60_000);

  it("a good workflow is evaluated in each process: only broken verdicts are kept on disk", async () => {
    const good = workflowSource("Fine");
    put(bed.ws.root, "good", good);
    const first = await (await freshCatalog()).listWorkflows(bed.ws, null);
    expect(first.find((w) => w.key === "good")?.status).toBe("ok");
    await (await freshCatalog()).listWorkflows(bed.ws, null);
    expect(evaluated.filter((s) => s === good)).toHaveLength(2);
  });
});
