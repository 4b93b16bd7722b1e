import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Mode } from "../../src/core/modes.js";
import { History } from "../../src/history/history.js";
import { type WorkflowBed, workflowBed } from "./fixtures.js";

/** No agent speaks in these runs: the script's calls need no model. */
const NO_MODEL = { turns: [{ text: "unused" }] };

let bed: WorkflowBed | null = null;
afterEach(async () => {
  await bed?.close();
  bed = null;
});

/** An inline workflow whose body runs `calls` (each caught) and returns what each gave. */
function script(calls: string): string {
  return `export default async function run(wf) {
  const out = [];
  const tryCall = async (name, input) => {
    try {
      const r = await wf.tools.call(name, input);
      out.push({ ok: true, text: r.text, details: r.details });
    } catch (e) {
      out.push({ ok: false, code: e.code, message: e.message, fields: e.fields ?? null });
    }
  };
  ${calls}
  return out;
}`;
}

type Outcome = {
  ok: boolean;
  code?: string;
  message?: string;
  text?: string;
  details?: unknown;
  fields?: unknown;
};

/** Run `source` inline as `caller` (a session id, or null for the user) in `mode`, to its end. */
async function runAs(source: string, caller: string | null, mode: Mode = "normal") {
  const started = await bed!.runs.start({ target: { script: source }, callerSessionId: caller, mode });
  const run = await bed!.runs.drive(started.id);
  expect(run.error).toBeNull();
  expect(run.status).toBe("completed");
  return { run, out: run.result as Outcome[] };
}

const file = (p: string) => join(bed!.project.root, p);
const changes = () => History.of(bed!.project).index.list({});

describe("wf.tools.call", () => {
  it("runs a tool through the pipeline as the user, recorded in the history with the run's call id", async () => {
    bed = await workflowBed(NO_MODEL);
    const { run, out } = await runAs(
      script(`await tryCall("write", { path: "notes/wf.md", content: "# From a workflow\\n" });
  await tryCall("read", { path: "notes/wf.md" });`),
      null,
    );
    expect(out[0]).toMatchObject({ ok: true });
    expect(out[1].ok).toBe(true);
    expect(out[1].text).toContain("From a workflow");
    expect(readFileSync(file("notes/wf.md"), "utf8")).toBe("# From a workflow\n");
    const c = changes().find((x) => x.targets?.includes("notes/wf.md"));
    expect(c).toMatchObject({ actor: "user", tool: "write", callId: `workflow:${run.id}#0` });
    expect(bed.store.journal(run.id).map((e) => e.kind)).toEqual(["tools.call", "tools.call"]);
  });

  it("runs as the agent that started the run: its session and profile in the history", async () => {
    bed = await workflowBed(NO_MODEL);
    const { run, out } = await runAs(
      script(`await tryCall("write", { path: "notes/agent.md", content: "x\\n" });`),
      bed.callerId,
    );
    expect(out[0].ok).toBe(true);
    const c = changes().find((x) => x.targets?.includes("notes/agent.md"));
    expect(c).toMatchObject({
      actor: "agent",
      session: bed.callerId,
      profile: "leader.default",
      callId: `workflow:${run.id}#0`,
    });
  });

  it("refuses a tool the caller's profile does not allow, writing nothing", async () => {
    bed = await workflowBed(NO_MODEL);
    const reader = bed.harness.createSession({
      profileKey: "retrieval",
      project: bed.project.name,
      initial: { prompt: "find the bell" },
    });
    const { out } = await runAs(
      script(`await tryCall("write", { path: "notes/no.md", content: "x" });
  await tryCall("read", { path: "lorebook" });`),
      reader.id,
    );
    expect(out[0]).toMatchObject({ ok: false, code: "not_allowed" });
    expect(out[0].message).toContain("retrieval");
    expect(existsSync(file("notes/no.md"))).toBe(false);
    // What the profile does allow still runs.
    expect(out[1].ok).toBe(true);
  });

  it("in discuss mode a write is refused with approval_required (and its preview); reads run", async () => {
    bed = await workflowBed(NO_MODEL);
    const before = changes().length;
    const { out } = await runAs(
      script(`await tryCall("write", { path: "notes/discuss.md", content: "x" });
  await tryCall("save_story_thread", { action: "create", name: "wf-thread", title: "A thread" });
  await tryCall("get_story_tree", {});`),
      bed.callerId,
      "discuss",
    );
    expect(out[0]).toMatchObject({ ok: false, code: "approval_required" });
    expect(out[0].message).toContain("discuss mode");
    expect(out[1]).toMatchObject({ ok: false, code: "approval_required" });
    expect(out[2].ok).toBe(true);
    expect(existsSync(file("notes/discuss.md"))).toBe(false);
    const { openPlotContext, listThreads } = await import("../../src/plot/index.js");
    const pc = await openPlotContext(bed.project, "user");
    expect((listThreads(pc, {}).rows as { name: string }[]).map((t) => t.name)).not.toContain("wf-thread");
    expect(changes()).toHaveLength(before);
  });

  it("in plan mode only the plan folder may be written, as for an agent", async () => {
    bed = await workflowBed(NO_MODEL);
    const { out } = await runAs(
      script(`await tryCall("write", { path: ".agent/plan/steps.md", content: "1. Read\\n" });
  await tryCall("write", { path: "notes/plan.md", content: "x" });`),
      bed.callerId,
      "plan",
    );
    expect(out[0].ok).toBe(true);
    expect(readFileSync(file(".agent/plan/steps.md"), "utf8")).toBe("1. Read\n");
    expect(out[1]).toMatchObject({ ok: false, code: "approval_required" });
    expect(existsSync(file("notes/plan.md"))).toBe(false);
  });

  it("refuses a path outside the project and bad input with pointers, writing nothing", async () => {
    bed = await workflowBed(NO_MODEL);
    const { out } = await runAs(
      script(`await tryCall("write", { path: "../outside.md", content: "x" });
  await tryCall("write", { path: "/etc/nbook-wf.md", content: "x" });
  await tryCall("write", { path: 7 });
  await tryCall("no_such_tool", {});
  await tryCall("task_create", { title: "t" });`),
      bed.callerId,
    );
    expect(out[0]).toMatchObject({ ok: false, code: "path_escape" });
    expect(out[1]).toMatchObject({ ok: false, code: "path_escape" });
    expect(existsSync(join(bed.project.root, "..", "outside.md"))).toBe(false);
    expect(existsSync("/etc/nbook-wf.md")).toBe(false);
    expect(out[2]).toMatchObject({ ok: false, code: "invalid_input" });
    const pointers = (out[2].fields as { pointer: string }[]).map((f) => f.pointer);
    expect(pointers).toContain("/path");
    expect(pointers).toContain("/content");
    expect(out[3]).toMatchObject({ ok: false, code: "not_found" });
    // A session-bound tool needs an agent's own turn.
    expect(out[4]).toMatchObject({ ok: false, code: "unsupported" });
    // No host path reaches the script.
    for (const o of out) expect(o.message).not.toContain(bed.dir);
  });

  it("is journaled: a run resumed after an answer does not run a completed write again", async () => {
    bed = await workflowBed(NO_MODEL);
    const source = `export default async function run(wf) {
  const r = await wf.tools.call("save_story_thread", { action: "create", name: "once-only", title: "Once" });
  const go = await wf.ask({ kind: "approve", key: "go", title: "Go on?" });
  return { go, created: r.details };
}`;
    const started = await bed.runs.start({
      target: { script: source },
      callerSessionId: null,
      mode: "normal",
    });
    const waiting = await bed.runs.drive(started.id);
    expect(waiting.status).toBe("waiting");
    bed.runs.answer(started.id, { go: true });
    const done = await bed.runs.drive(started.id);
    expect(done.error).toBeNull();
    expect(done.status).toBe("completed");
    const { openPlotContext, listThreads } = await import("../../src/plot/index.js");
    const pc = await openPlotContext(bed.project, "user");
    const named = (listThreads(pc, {}).rows as { name: string }[]).filter((t) => t.name === "once-only");
    expect(named).toHaveLength(1);
    expect(bed.store.journal(started.id).filter((e) => e.kind === "tools.call")).toHaveLength(1);
  });
});
