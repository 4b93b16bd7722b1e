import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { EntryOf } from "../../src/harness/store/index.js";
import type { AgentInvocationResult } from "../../src/tools/collaboration/service.js";
import { type CollabFixture, call, collabFixture, toolResults } from "./fixture.js";

let fx: CollabFixture | undefined;
afterEach(() => {
  fx?.close();
  fx = undefined;
});

describe("no escalation through delegation", () => {
  it("a discuss-mode leader's writer is stopped for approval; approving it runs exactly that call once and the leader gets the result", async () => {
    fx = collabFixture({
      "leader.default": [
        call("create_agent", { profileKey: "writer" }),
        call("invoke_agent", {
          sessionId: 2,
          message: "Draft chapter 3",
          input: { path: "manuscript/03.md" },
        }),
        { text: "The writer waits for your approval." },
        { expect: { lastUser: "Drafted manuscript/03.md" }, text: "The writer finished chapter 3." },
      ],
      writer: [
        {
          expect: { system: "called you while it is in discuss mode" },
          text: "Drafting.",
          toolCalls: [
            { name: "write", id: "w1", input: { path: "manuscript/03.md", content: "The bell rang.\n" } },
          ],
        },
        {
          expect: { lastToolResult: "manuscript/03.md" },
          toolCalls: [
            { name: "report_result", input: { result: "Drafted manuscript/03.md", data: { summary: "ok" } } },
          ],
        },
      ],
    });
    const leader = fx.root("leader.default", { mode: "discuss" });
    const r = await fx.harness.invoke(leader.id, { mode: "prompt", message: "Write chapter 3" });
    expect(r.status).toBe("completed");
    const file = join(fx.project.root, "manuscript/03.md");
    expect(existsSync(file)).toBe(false);

    const invoked = toolResults(fx, leader.id)[1];
    const details = invoked.details as AgentInvocationResult;
    expect(details).toMatchObject({
      status: "waiting",
      sessionId: "2",
      pending: { kind: "write", tool: "write" },
    });
    expect(details.pending?.preview).toContain("The bell rang.");
    expect(invoked.text).toContain(`nbook approve 2 ${details.approvalId}`);
    // A real, durable approval in the child's session; the child's own mode is untouched.
    expect(fx.store.pendingApprovals("2").map((a) => a.id)).toEqual([details.approvalId]);
    expect(fx.store.session("2").mode).toBe("normal");
    expect(fx.store.pendingApprovals(leader.id)).toEqual([]);

    const settled = await fx.harness.settle("2", details.approvalId as string, { approved: true });
    expect(settled.status).toBe("completed");
    expect(readFileSync(file, "utf8")).toBe("The bell rang.\n");
    expect(toolResults(fx, "2").filter((t) => t.callId === "w1")).toHaveLength(1);
    // The result flows back once, as a system follow-up that starts the leader's turn (which may
    // already have ended: awaiting an ended run is a no-op).
    await fx.harness.flowBackRun(leader.id);
    const ends = fx.store.activePath(leader.id).filter((e): e is EntryOf<"run_end"> => e.kind === "run_end");
    expect(ends.at(-1)?.data).toMatchObject({
      status: "completed",
      finalMessage: "The writer finished chapter 3.",
    });
    const reminders = fx.store
      .activePath(leader.id)
      .filter((e): e is EntryOf<"user"> => e.kind === "user" && e.data.text.includes("<system-reminder>"));
    expect(reminders).toHaveLength(1);
    expect(reminders[0].data.text).toContain("Agent 2 (writer)");
    expect(reminders[0].data.text).toContain("status completed");
    expect(reminders[0].data.text).toContain("Drafted manuscript/03.md");
  });

  it("the ceiling holds after the approval: the continued run's next write is stopped again", async () => {
    fx = collabFixture({
      "leader.default": [
        call("create_agent", { profileKey: "writer" }),
        call("invoke_agent", { sessionId: 2, message: "Two files", input: { path: "a.md" } }),
        { text: "waiting" },
      ],
      writer: [
        { toolCalls: [{ name: "write", input: { path: "a.md", content: "a" } }] },
        { toolCalls: [{ name: "write", input: { path: "a.md", content: "a, revised" } }] },
      ],
    });
    const leader = fx.root("leader.default", { mode: "plan" });
    await fx.harness.invoke(leader.id, { mode: "prompt", message: "go" });
    const first = toolResults(fx, leader.id)[1].details as AgentInvocationResult;
    const again = await fx.harness.settle("2", first.approvalId as string, { approved: true });
    expect(again.status).toBe("waiting");
    expect(again.pending?.tool).toBe("write");
    expect(readFileSync(join(fx.project.root, "a.md"), "utf8")).toBe("a");
    // Still waiting: nothing flows back yet.
    expect(fx.store.queued(leader.id)).toEqual([]);
    expect(fx.harness.flowBackRun(leader.id)).toBeUndefined();
  });

  it("a normal-mode leader's writer writes without asking", async () => {
    fx = collabFixture({
      "leader.default": [
        call("create_agent", { profileKey: "writer" }),
        call("invoke_agent", { sessionId: 2, message: "x", input: { path: "a.md" } }),
        { text: "ok" },
      ],
      writer: [
        { toolCalls: [{ name: "write", input: { path: "a.md", content: "a" } }] },
        { text: "written" },
      ],
    });
    const leader = fx.root();
    await fx.harness.invoke(leader.id, { mode: "prompt", message: "go" });
    expect(readFileSync(join(fx.project.root, "a.md"), "utf8")).toBe("a");
  });

  it("a child has its own profile's tools, never the parent's", async () => {
    fx = collabFixture({
      "leader.default": [
        call("create_agent", { profileKey: "writer" }),
        call("invoke_agent", { sessionId: 2, message: "x", input: { path: "a.md" } }),
        { text: "ok" },
      ],
      writer: [
        {
          expect: { tools: ["write", "read"], notTools: ["execute_sql", "create_agent", "save_story_act"] },
          toolCalls: [{ name: "execute_sql", input: { sql: "SELECT 1" } }],
        },
        { text: "could not" },
      ],
    });
    const leader = fx.root();
    await fx.harness.invoke(leader.id, { mode: "prompt", message: "go" });
    const [sql] = toolResults(fx, "2");
    expect(sql).toMatchObject({ ok: false, error: { code: "not_allowed" } });
    expect(sql.text).toContain("not allowed for profile writer");
  });
});

describe("invoke_agent in the background", () => {
  it("returns a job at once; the child's result flows back to the caller once, starting its turn", async () => {
    fx = collabFixture({
      "leader.default": [
        call("create_agent", { profileKey: "writer" }),
        call("invoke_agent", { sessionId: 2, message: "Draft", input: { path: "a.md" }, background: true }),
        { text: "Started the writer; I will report when it is back." },
        { expect: { lastUser: "Drafted a.md" }, text: "The writer is done." },
      ],
      writer: [call("report_result", { result: "Drafted a.md", data: { summary: "ok" } })],
    });
    const leader = fx.root();
    await fx.harness.invoke(leader.id, { mode: "prompt", message: "go" });
    const started = toolResults(fx, leader.id)[1].details as AgentInvocationResult;
    expect(started).toMatchObject({ status: "started", sessionId: "2", finalMessage: "", data: null });
    expect(started.jobId).toBeTruthy();
    await fx.harness.jobs.whenIdle();
    await fx.harness.flowBackRun(leader.id);
    const job = fx.harness.jobs.get(started.jobId as string, { sessionId: leader.id });
    expect(job).toMatchObject({ kind: "invoke_agent", status: "completed", ownerSessionId: leader.id });
    expect(job.result?.text).toContain("Drafted a.md");
    const path = fx.store.activePath(leader.id);
    const reminders = path.filter((e) => e.kind === "user" && e.data.text.includes("<system-reminder>"));
    expect(reminders).toHaveLength(1);
    const last = path.filter((e): e is EntryOf<"assistant"> => e.kind === "assistant").at(-1);
    expect(last?.data.text).toBe("The writer is done.");
  });
});

describe("a flow-back to a caller another process is running", () => {
  it("is queued for that run instead of starting a second run here", async () => {
    fx = collabFixture({
      "leader.default": [
        call("create_agent", { profileKey: "writer" }),
        call("invoke_agent", { sessionId: 2, message: "x", input: { path: "a.md" } }),
        { text: "waiting" },
      ],
      writer: [
        { toolCalls: [{ name: "write", input: { path: "a.md", content: "a" } }] },
        { text: "written" },
      ],
    });
    const leader = fx.root("leader.default", { mode: "discuss" });
    await fx.harness.invoke(leader.id, { mode: "prompt", message: "go" });
    const waiting = toolResults(fx, leader.id)[1].details as AgentInvocationResult;
    // As another process records while it runs the leader.
    fx.store.setStatus(leader.id, "running");
    await fx.harness.settle("2", waiting.approvalId as string, { approved: true });
    expect(fx.harness.flowBackRun(leader.id)).toBeUndefined();
    expect(fx.harness.isRunning(leader.id)).toBe(false);
    const queued = fx.store.queued(leader.id);
    expect(queued).toHaveLength(1);
    expect(queued[0].text).toContain("Agent 2 (writer)");
  });
});

describe("a waiting agent detached by its caller", () => {
  it("finishes after the approval without flowing back to the caller that gave it up", async () => {
    fx = collabFixture({
      "leader.default": [
        call("create_agent", { profileKey: "writer" }),
        call("invoke_agent", { sessionId: 2, message: "x", input: { path: "a.md" } }),
        call("detach_agent", { sessionId: 2 }),
        { text: "dropped it" },
      ],
      writer: [
        { toolCalls: [{ name: "write", input: { path: "a.md", content: "a" } }] },
        call("report_result", { result: "written" }),
      ],
    });
    const leader = fx.root("leader.default", { mode: "discuss" });
    await fx.harness.invoke(leader.id, { mode: "prompt", message: "go" });
    const waiting = toolResults(fx, leader.id)[1].details as AgentInvocationResult;
    const done = await fx.harness.settle("2", waiting.approvalId as string, { approved: true });
    expect(done.status).toBe("completed");
    expect(fx.store.queued(leader.id)).toEqual([]);
    expect(fx.harness.flowBackRun(leader.id)).toBeUndefined();
  });
});
