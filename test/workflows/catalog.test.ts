import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { NbError } from "../../src/core/errors.js";
import { validateArgs } from "../../src/workflows/args.js";
import { getWorkflow, listWorkflows } from "../../src/workflows/catalog.js";
import { closeWorkflowSandbox } from "../../src/workflows/sandbox/index.js";
import { makeTestBed, type TestBed } from "../helpers.js";
import { workflowSource } from "./fixtures.js";

function put(root: string, key: string, source: string): string {
  const dir = join(root, ".nbook", "agent", "workflows", key);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "workflow.js");
  writeFileSync(file, source);
  return file;
}

let bed: TestBed;
beforeEach(() => {
  bed = makeTestBed();
});
afterEach(() => bed.cleanup());
afterAll(() => closeWorkflowSandbox());

describe("workflow catalog", () => {
  it("lists the built-ins, overrides by key workspace over built-in and project over both, and adds project-only ones", async () => {
    const builtin = await listWorkflows(bed.ws, bed.project);
    const brainstorm = builtin.find((w) => w.key === "brainstorm");
    expect(brainstorm).toMatchObject({
      layer: "builtin",
      status: "ok",
      file: "(builtin)/brainstorm/workflow.js",
    });
    expect(brainstorm?.meta?.phases.map((p) => p.key)).toEqual(["angles", "judge"]);

    put(bed.ws.root, "brainstorm", workflowSource("Workspace brainstorm"));
    put(bed.ws.root, "outline", workflowSource("Workspace outline"));
    let all = await listWorkflows(bed.ws, bed.project);
    expect(all.find((w) => w.key === "brainstorm")).toMatchObject({
      layer: "workspace",
      file: ".nbook/agent/workflows/brainstorm/workflow.js",
      meta: { title: "Workspace brainstorm" },
    });

    put(bed.project.root, "outline", workflowSource("Project outline"));
    put(bed.project.root, "only-here", workflowSource("Project only"));
    all = await listWorkflows(bed.ws, bed.project);
    expect(all.find((w) => w.key === "outline")).toMatchObject({
      layer: "project",
      file: `${bed.project.name}/.nbook/agent/workflows/outline/workflow.js`,
      meta: { title: "Project outline" },
    });
    expect(all.find((w) => w.key === "only-here")?.meta?.title).toBe("Project only");
    expect(all.find((w) => w.key === "brainstorm")?.layer).toBe("workspace");
    // Without the project, its layer is not seen.
    const noProject = await listWorkflows(bed.ws, null);
    expect(noProject.find((w) => w.key === "only-here")).toBeUndefined();
    expect(noProject.find((w) => w.key === "outline")?.meta?.title).toBe("Workspace outline");
    expect(all.map((w) => w.key)).toEqual([...all.map((w) => w.key)].sort());
  });

  it("reports a syntax error with its file and line, and the broken workflow still overrides the built-in", async () => {
    put(
      bed.project.root,
      "brainstorm",
      `export const title = "x";\n\nexport const phases = [\n  { key: "a", title: "A" ,,\n];\n`,
    );
    const w = (await listWorkflows(bed.ws, bed.project)).find((e) => e.key === "brainstorm");
    expect(w).toMatchObject({ status: "broken", layer: "project", line: 4 });
    expect(w?.reason).toContain("SyntaxError");
    const e = await getWorkflow(bed.ws, bed.project, "brainstorm").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NbError);
    expect((e as NbError).code).toBe("config_error");
    expect((e as NbError).message).toContain("novel/.nbook/agent/workflows/brainstorm/workflow.js:4");
  });

  it("reports a top-level throw, an import, a bad export and a bad args schema with the line", async () => {
    put(bed.ws.root, "throws", `export const title = "x";\nconst a = 1;\nthrow new Error("boom");\n`);
    put(bed.ws.root, "imports", `import fs from "fs";\nexport default async function run() {}\n`);
    put(
      bed.ws.root,
      "bad-export",
      workflowSource("t").replace(`export const whenToUse = "In tests.";`, `export const whenToUse = 42;`),
    );
    put(
      bed.ws.root,
      "bad-args",
      workflowSource("t").replace(
        /export const args = .*;/,
        `export const args = { type: "object", properties: { a: { type: "strnig" } } };`,
      ),
    );
    put(bed.ws.root, "no-run", `export const title = "x";\n`);
    const all = await listWorkflows(bed.ws, null);
    const get = (k: string) => all.find((w) => w.key === k);
    expect(get("throws")).toMatchObject({ status: "broken", line: 3 });
    expect(get("throws")?.reason).toContain("boom");
    expect(get("imports")?.status).toBe("broken");
    expect(get("imports")?.reason).toContain("cannot import modules");
    expect(get("bad-export")).toMatchObject({ status: "broken", line: 3 });
    expect(get("bad-export")?.reason).toContain("/whenToUse");
    expect(get("bad-args")).toMatchObject({ status: "broken", line: 5 });
    expect(get("bad-args")?.reason).toContain("strnig");
    expect(get("no-run")?.reason).toContain("no default export");
  });

  it("caches an entry by file identity and re-reads a changed file", async () => {
    const file = put(bed.ws.root, "cached", workflowSource("First"));
    const a = (await listWorkflows(bed.ws, null)).find((w) => w.key === "cached");
    const b = (await listWorkflows(bed.ws, null)).find((w) => w.key === "cached");
    expect(b).toBe(a);
    writeFileSync(file, workflowSource("Second, longer"));
    const c = (await listWorkflows(bed.ws, null)).find((w) => w.key === "cached");
    expect(c?.meta?.title).toBe("Second, longer");
  });

  it("validates args against the schema with JSON-Pointer errors and fills defaults", async () => {
    put(bed.ws.root, "typed", workflowSource("Typed"));
    const w = await getWorkflow(bed.ws, null, "typed");
    expect(validateArgs(w.meta.args, { name: "Mira" })).toEqual({ name: "Mira", n: 2 });
    const e = (() => {
      try {
        validateArgs(w.meta.args, { n: 0, extra: true });
      } catch (x) {
        return x as NbError;
      }
    })();
    expect(e?.code).toBe("invalid_input");
    expect(e?.fields).toEqual(
      expect.arrayContaining([
        { pointer: "/args/name", message: "required" },
        expect.objectContaining({ pointer: "/args/n" }),
        { pointer: "/args/extra", message: "unknown field" },
      ]),
    );
  });

  it("a project workflow whose file links out of the project is broken, not read", async () => {
    const outside = join(bed.dir, "outside.js");
    writeFileSync(outside, workflowSource("Outside"));
    const dir = join(bed.project.root, ".nbook", "agent", "workflows", "linked");
    mkdirSync(dir, { recursive: true });
    symlinkSync(outside, join(dir, "workflow.js"));
    const w = (await listWorkflows(bed.ws, bed.project)).find((e) => e.key === "linked");
    expect(w).toMatchObject({ status: "broken", layer: "project" });
    expect(w?.reason).toContain("leads out of the project");
    expect(w?.source).toBeUndefined();
  });
});
