import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WorkflowStore } from "../../src/workflows/store/index.js";
import { makeTestBed, runNbook, type TestBed } from "../helpers.js";

const ASKING = `export const title = "Ask demo";
export default async function run(wf, args) {
  wf.progress({ phase: "ask", done: 0, total: 1 });
  const ok = await wf.ask({ kind: "approve", title: "Proceed?", key: "go" });
  const text = await wf.workspace.read("project.yaml");
  return { ok, n: args.n, read: text.length > 0 };
}
`;

let bed: TestBed;
beforeEach(() => {
  bed = makeTestBed();
});
afterEach(() => bed.cleanup());

describe("nbook workflows", () => {
  it("lists a broken project workflow with its file and line, and shows a definition", () => {
    const dir = join(bed.project.root, ".nbook", "agent", "workflows", "broken-one");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "workflow.js"), `export const title = "x";\nexport const phases = [;\n`);
    const list = runNbook(["workflows", "list", "--json"], { cwd: bed.project.root });
    expect(list.status).toBe(0);
    const rows = JSON.parse(list.stdout).workflows as Array<{
      key: string;
      status: string;
      line?: number;
      file: string;
    }>;
    expect(rows.find((r) => r.key === "broken-one")).toMatchObject({
      status: "broken",
      line: 2,
      file: "novel/.nbook/agent/workflows/broken-one/workflow.js",
    });
    expect(rows.filter((r) => r.status === "ok").map((r) => r.key)).toEqual([
      "book-backfill",
      "book-digest",
      "brainstorm",
      "chapter-write-review-revise",
      "continuity-check",
    ]);
    const show = runNbook(["workflows", "show", "brainstorm"], { cwd: bed.project.root });
    expect(show.stdout).toContain("Phases: angles (Ideas per angle), judge (Merge and rank)");
  });

  it("runs a script that asks, refuses bad answers writing nothing, resumes on a good one, and shows the run", () => {
    const file = join(bed.dir, "ask.js");
    writeFileSync(file, ASKING);
    const run = runNbook(["workflows", "run", "--file", file, "--args", '{"n":3}'], {
      cwd: bed.project.root,
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("waiting");
    expect(run.stdout).toContain("ask go (approve): Proceed?");
    const store = WorkflowStore.forWorkspace(bed.ws);
    try {
      const [r] = store.listRuns();
      const bad = runNbook(["workflows", "answer", r.id, "--answers", '{"go":"yes","extra":1}'], {
        cwd: bed.project.root,
      });
      expect(bad.status).toBe(2);
      expect(bad.stderr).toContain("/go: must be true or false");
      expect(bad.stderr).toContain("/extra: no pending question has this key");
      expect(store.journal(r.id)).toEqual([]);
      expect(store.run(r.id).status).toBe("waiting");
      const good = runNbook(["workflows", "answer", r.id, "--answers", '{"go":true}', "--json"], {
        cwd: bed.project.root,
      });
      expect(good.status).toBe(0);
      expect(JSON.parse(good.stdout).run).toMatchObject({
        status: "completed",
        result: { ok: true, n: 3, read: true },
      });
      const show = runNbook(["workflows", "show", r.id], { cwd: bed.project.root });
      expect(show.stdout).toContain(`Run ${r.id}: inline (Ask demo) — completed`);
      expect(show.stdout).toMatch(/#0 ask ok/);
      expect(show.stdout).toMatch(/#1 workspace.read ok/);
    } finally {
      store.close();
    }
  });
});
