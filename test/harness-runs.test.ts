import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type HarnessFixture, harnessFixture } from "./harness-fixture.js";

let fx: HarnessFixture;
afterEach(() => fx?.close());

const userTexts = (f: HarnessFixture, id: string) =>
  f.store.activePath(id).flatMap((e) => (e.kind === "user" ? [`${e.data.intent}:${e.data.text}`] : []));

describe("report_result", () => {
  it("ends the run with validated data", async () => {
    fx = harnessFixture([
      {
        toolCalls: [
          { name: "report_result", input: { result: "Chapter drafted", data: { summary: "ch3" } } },
        ],
      },
    ]);
    const s = fx.harness.createSession({ profileKey: "writer", project: "novel" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "write" });
    expect(r).toMatchObject({
      status: "completed",
      finalMessage: "Chapter drafted",
      data: { summary: "ch3" },
    });
  });

  it("returns JSON-Pointer errors for bad data and ends after three invalid calls in a row", async () => {
    const bad = {
      toolCalls: [{ name: "report_result", input: { result: "x", data: { summary: 1, extra: true } } }],
    };
    fx = harnessFixture([bad, bad, bad, { text: "never reached" }]);
    const s = fx.harness.createSession({ profileKey: "writer", project: "novel" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "write" });
    expect(r.status).toBe("error");
    expect(r.error?.code).toBe("limit_exceeded");
    expect(fx.model.remaining).toBe(1);
    const first = fx.store.activePath(s.id).find((e) => e.kind === "tool_result");
    const pointers = first?.kind === "tool_result" ? first.data.error?.fields?.map((f) => f.pointer) : [];
    expect(pointers).toEqual(expect.arrayContaining(["/data/summary", "/data/extra"]));
  });

  it("reminds a profile with an output schema once when it ends without reporting", async () => {
    fx = harnessFixture([
      { text: "I wrote it." },
      {
        expect: { lastUser: "report_result" },
        toolCalls: [{ name: "report_result", input: { result: "ok", data: { summary: "s" } } }],
      },
    ]);
    const s = fx.harness.createSession({ profileKey: "writer", project: "novel" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "write" });
    expect(r).toMatchObject({ status: "completed", data: { summary: "s" } });

    fx.script([{ text: "no report" }, { text: "still none" }]);
    const again = await fx.harness.invoke(s.id, { mode: "prompt", message: "again" });
    expect(again).toMatchObject({ status: "completed", finalMessage: "still none" });
  });

  it("takes an adhoc session's outputSchema as its output type: offered to the model and enforced", async () => {
    const outputSchema = {
      type: "object",
      properties: { angle: { type: "string" } },
      required: ["angle"],
      additionalProperties: false,
    };
    fx = harnessFixture([
      { toolCalls: [{ name: "report_result", input: { result: "x", data: { angle: 3 } } }] },
      { toolCalls: [{ name: "report_result", input: { result: "done", data: { angle: "a heist" } } }] },
    ]);
    const s = fx.harness.createSession({
      profileKey: "adhoc",
      project: "novel",
      initial: { systemPrompt: "Find an angle.", outputSchema },
    });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "go" });
    expect(r).toMatchObject({ status: "completed", data: { angle: "a heist" } });
    const first = fx.store.activePath(s.id).find((e) => e.kind === "tool_result");
    expect(first?.kind === "tool_result" && first.data.error?.fields?.map((f) => f.pointer)).toEqual([
      "/data/angle",
    ]);

    const { offeredTools } = await import("../src/harness/tool-specs.js");
    const { sessionOutput } = await import("../src/profiles/define.js");
    const { createToolRegistry } = await import("../src/tools/builtin.js");
    const profile = fx.harness.catalog.get("adhoc");
    const offered = offeredTools(createToolRegistry(), profile, sessionOutput(profile, { outputSchema }));
    const report = offered.tools.find((t) => t.name === "report_result");
    expect(JSON.stringify(report?.inputSchema)).toContain('"angle"');
  });

  it("refuses an adhoc outputSchema that is not a usable JSON Schema when the session is created", () => {
    fx = harnessFixture([{ text: "unused" }]);
    expect(() =>
      fx.harness.createSession({
        profileKey: "adhoc",
        project: "novel",
        initial: { systemPrompt: "x", outputSchema: { type: "no-such-type" } },
      }),
    ).toThrow(/outputSchema/);
  });

  it("answers unsupported outside a session", async () => {
    fx = harnessFixture([{ text: "unused" }]);
    const { dispatch } = await import("../src/tools/dispatch.js");
    const { createToolRegistry } = await import("../src/tools/builtin.js");
    const r = await dispatch(
      { key: "task_create", input: { title: "x" } },
      {
        registry: createToolRegistry(),
        workspace: fx.workspace,
        project: fx.project,
        mode: "normal",
        profileKey: null,
        allow: "all",
      },
    );
    expect(r.ok === false && r.error.code).toBe("unsupported");
  });
});

describe("tasks", () => {
  it("keeps a per-branch task list that the model sees every turn", async () => {
    fx = harnessFixture([
      {
        toolCalls: [
          { name: "task_create", input: { title: "Read canon" } },
          { name: "task_create", input: { title: "Draft" } },
        ],
      },
      {
        expect: { system: "t2 Draft" },
        toolCalls: [{ name: "task_set_status", input: { id: "t1", status: "in_progress" } }],
      },
      {
        expect: { system: "[~] t1 Read canon" },
        toolCalls: [{ name: "task_set_status", input: { id: "t9", status: "completed" } }],
      },
      { expect: { lastToolResult: "No task t9" }, text: "ok" },
    ]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "plan" });
    expect(r.status).toBe("completed");
    expect(fx.harness.tasks(s.id).map((t) => `${t.id}:${t.status}`)).toEqual([
      "t1:in_progress",
      "t2:pending",
    ]);
    expect(fx.events.filter((e) => e.type === "task_list_changed")).toHaveLength(2);
    const first = fx.store.activePath(s.id).find((e) => e.kind === "user")!;
    fx.store.setLeaf(s.id, first.id);
    expect(fx.harness.tasks(s.id)).toEqual([]);
  });
});

describe("invocation modes", () => {
  it("steer is injected before the next model call of the active run", async () => {
    fx = harnessFixture([
      { toolCalls: [{ name: "read", input: { path: "AGENTS.md" } }] },
      { expect: { lastUser: "make it darker" }, text: "darker it is" },
    ]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    let queued: Promise<unknown> | null = null;
    fx.harness.bus.on((e) => {
      if (e.type === "tool_call_end" && !queued)
        queued = fx.harness.invoke(s.id, { mode: "steer", message: "make it darker" });
    });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "draft" });
    expect(await queued).toMatchObject({ status: "queued" });
    expect(r.finalMessage).toBe("darker it is");
    expect(userTexts(fx, s.id)).toEqual(["prompt:draft", "steer:make it darker"]);
    expect(fx.store.queued(s.id)).toEqual([]);
  });

  it("followup and prompt during a run queue durably and run after it, in order", async () => {
    fx = harnessFixture([
      { toolCalls: [{ name: "read", input: { path: "AGENTS.md" } }] },
      { text: "first done" },
      { expect: { lastUser: "then this" }, text: "second done" },
      { expect: { lastUser: "and this" }, text: "third done" },
    ]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    let n = 0;
    const refused: string[] = [];
    fx.harness.bus.on((e) => {
      if (e.type === "tool_call_start" && n++ === 0) {
        void fx.harness.invoke(s.id, { mode: "followup", message: "then this" });
        void fx.harness.invoke(s.id, { mode: "prompt", message: "and this" });
        expect(fx.store.queued(s.id).map((q) => q.kind)).toEqual(["followup", "prompt"]);
        fx.harness
          .invoke(s.id, { mode: "continue" })
          .catch((err: { code: string }) => refused.push(err.code));
      }
    });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "start" });
    expect(r.finalMessage).toBe("third done");
    expect(refused).toEqual(["conflict"]);
    expect(userTexts(fx, s.id)).toEqual(["prompt:start", "followup:then this", "prompt:and this"]);
    expect(fx.events.filter((e) => e.type === "run_end")).toHaveLength(3);
  });

  it("a provider error mid-stream keeps the partial text, leaves the session idle, and continue resumes it", async () => {
    fx = harnessFixture([
      { toolCalls: [{ name: "read", input: { path: "AGENTS.md" } }] },
      { text: "Half a sent", error: "upstream reset" },
    ]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "go" });
    expect(r.status).toBe("error");
    expect(r.error?.message).toContain("upstream reset");
    expect(fx.store.session(s.id).status).toBe("idle");
    const partial = fx.store
      .activePath(s.id)
      .filter((e) => e.kind === "assistant")
      .at(-1);
    expect(partial?.kind === "assistant" && [partial.data.status, partial.data.text]).toEqual([
      "partial",
      "Half a sent",
    ]);
    expect(fx.store.pendingToolCalls(s.id)).toEqual([]);

    fx.script([{ expect: { lastToolResult: "Instructions" }, text: "Resumed." }]);
    const c = await fx.harness.invoke(s.id, { mode: "continue" });
    expect(c).toMatchObject({ status: "completed", finalMessage: "Resumed." });
    expect(userTexts(fx, s.id)).toEqual(["prompt:go"]);
  });

  it("a provider error before any output keeps the user message and writes no assistant message", async () => {
    fx = harnessFixture([{ error: "401 unauthorized" }]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "hi" });
    expect(r.status).toBe("error");
    const kinds = fx.store.activePath(s.id).map((e) => e.kind);
    expect(kinds).toEqual(["run_start", "user", "run_error", "run_end"]);
  });

  it("validates a request_user_input call before pausing: a malformed one is an error result, not a question", async () => {
    fx = harnessFixture([
      { toolCalls: [{ name: "request_user_input", input: { question: "Which?", allowFreeText: false } }] },
      { expect: { lastToolResult: "/allowFreeText" }, text: "fixed" },
    ]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "ask" });
    expect(r).toMatchObject({ status: "completed", finalMessage: "fixed" });
    expect(fx.events.some((e) => e.type === "user_input_required")).toBe(false);
  });

  it("abort stops the stream, keeps the session consistent, and the run can continue", async () => {
    fx = harnessFixture([{ text: "Thinking about", waitForAbort: true }]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    const stop = fx.harness.bus.on((e) => {
      if (e.type === "text_delta") {
        stop();
        fx.harness.abort(s.id);
      }
    });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "go" });
    expect(r.status).toBe("aborted");
    expect(fx.harness.isRunning(s.id)).toBe(false);
    expect(fx.store.session(s.id).status).toBe("idle");
    const last = fx.store
      .activePath(s.id)
      .filter((e) => e.kind === "assistant")
      .at(-1);
    expect(last?.kind === "assistant" && last.data.status).toBe("aborted");

    fx.script([{ text: "Back." }]);
    expect((await fx.harness.invoke(s.id, { mode: "continue" })).status).toBe("completed");
  });

  it("an abort signal during tool calls records every call's result", async () => {
    fx = harnessFixture([
      {
        toolCalls: [
          { name: "write", input: { path: "a.md", content: "a" } },
          { name: "write", input: { path: "b.md", content: "b" } },
        ],
      },
    ]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    const controller = new AbortController();
    fx.harness.bus.on((e) => {
      if (e.type === "tool_call_end") controller.abort();
    });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "go", signal: controller.signal });
    expect(r.status).toBe("aborted");
    const results = fx.store.activePath(s.id).flatMap((e) => (e.kind === "tool_result" ? [e.data.ok] : []));
    expect(results).toEqual([true, false]);
    expect(fx.store.pendingToolCalls(s.id)).toEqual([]);
  });
});

describe("compaction", () => {
  it("summarises older history on a small window and proceeds with summary plus recent entries", async () => {
    const long = "The bell rang under the marsh. ".repeat(150);
    fx = harnessFixture([{ text: "noted" }], { contextWindow: 4000 });
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    await fx.harness.invoke(s.id, { mode: "prompt", message: long });
    fx.script([
      { text: "SUMMARY: the user described a bell ringing under the marsh." },
      { expect: { system: "SUMMARY: the user described a bell" }, text: "continuing" },
    ]);
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "what next?" });
    expect(r).toMatchObject({ status: "completed", finalMessage: "continuing" });
    const compaction = fx.store.activePath(s.id).find((e) => e.kind === "compaction");
    expect(compaction).toBeDefined();
    expect(fx.events.some((e) => e.type === "compacted")).toBe(true);
    const seen = JSON.stringify(fx.model.calls[1].prompt);
    expect(seen).not.toContain("The bell rang under the marsh. The bell");
    expect(seen).toContain("what next?");
  });
});

describe("sessions", () => {
  it("pins its model at creation; --model overrides one invocation without re-pinning", async () => {
    fx = harnessFixture([{ text: "one" }, { text: "two" }, { text: "three" }]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel", model: "local/a" });
    expect(fx.store.session(s.id).model).toBe("local/a");
    await fx.harness.invoke(s.id, { mode: "prompt", message: "first" });
    await fx.harness.invoke(s.id, { mode: "prompt", message: "second", model: "local/b" });
    await fx.harness.invoke(s.id, { mode: "prompt", message: "third" });
    const models = fx.store.activePath(s.id).flatMap((e) => (e.kind === "assistant" ? [e.data.model] : []));
    expect(models).toEqual(["local/a", "local/b", "local/a"]);
    expect(fx.store.session(s.id).model).toBe("local/a");
  });

  it("an untitled session is named after its first message", async () => {
    fx = harnessFixture([{ text: "a" }, { text: "b" }]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    expect(s.title).toBe("");
    await fx.harness.invoke(s.id, { mode: "prompt", message: "\n  Outline chapter four  \nwith details" });
    await fx.harness.invoke(s.id, { mode: "prompt", message: "Something else" });
    expect(fx.store.session(s.id).title).toBe("Outline chapter four");
  });

  it("retries from an earlier entry on a new branch and keeps the old one", async () => {
    fx = harnessFixture([{ text: "A dull opening." }]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    await fx.harness.invoke(s.id, { mode: "prompt", message: "Open chapter one" });
    const user = fx.store.activePath(s.id).find((e) => e.kind === "user")!;
    fx.store.setLeaf(s.id, user.id);
    fx.script([{ expect: { lastUser: "Open chapter one" }, text: "A storm-lit opening." }]);
    const retry = await fx.harness.invoke(s.id, { mode: "continue" });
    expect(retry.finalMessage).toBe("A storm-lit opening.");
    const texts = (entries: { kind: string; data: unknown }[]) =>
      entries.flatMap((e) => (e.kind === "assistant" ? [(e.data as { text: string }).text] : []));
    expect(texts(fx.store.activePath(s.id))).toEqual(["A storm-lit opening."]);
    expect(texts(fx.store.allEntries(s.id))).toEqual(["A dull opening.", "A storm-lit opening."]);
    expect(fx.store.children(user.id)).toHaveLength(2);
  });

  it("a process that died between approving a write and recording its result leaves a session that continues", async () => {
    fx = harnessFixture([
      { toolCalls: [{ name: "write", input: { path: "notes/x.md", content: "x\n" } }] },
      { expect: { lastToolResult: "interrupted" }, text: "I will check the file first." },
    ]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel", mode: "discuss" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "write" });
    // What settle commits before it runs the call; then the process is gone.
    fx.store.settleApproval(r.pending!.approvalId, { approved: true });
    expect(fx.harness.pending(s.id)).toBeNull();
    const c = await fx.harness.invoke(s.id, { mode: "continue" });
    expect(c).toMatchObject({ status: "completed", finalMessage: "I will check the file first." });
    const result = fx.store
      .activePath(s.id)
      .filter((e) => e.kind === "tool_result")
      .at(-1);
    expect(result?.kind === "tool_result" && result.data.error?.code).toBe("aborted");
    expect(fx.store.approval(r.pending!.approvalId).status).toBe("approved");
  });

  it("an abort while an approved write is applied stops the continued run too, and the session goes on", async () => {
    fx = harnessFixture([
      { toolCalls: [{ name: "write", input: { path: "notes/y.md", content: "y\n" } }] },
      { expect: { lastToolResult: "aborted" }, text: "Stopped; tell me when to go on." },
    ]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel", mode: "discuss" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "write" });
    const stop = fx.harness.bus.on((e) => {
      if (e.type === "tool_call_start") {
        stop();
        fx.harness.abort(s.id);
      }
    });
    const settled = await fx.harness.settle(s.id, r.pending!.approvalId, { approved: true });
    expect(settled.status).toBe("aborted");
    expect(fx.model.remaining).toBe(1);
    expect(existsSync(join(fx.project.root, "notes/y.md"))).toBe(false);
    expect(fx.store.session(s.id).status).toBe("idle");
    const c = await fx.harness.invoke(s.id, { mode: "continue" });
    expect(c).toMatchObject({ status: "completed", finalMessage: "Stopped; tell me when to go on." });
  });

  it("continue takes no message and prompt needs one", async () => {
    fx = harnessFixture([{ text: "unused" }]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    await expect(fx.harness.invoke(s.id, { mode: "continue", message: "hi" })).rejects.toMatchObject({
      code: "invalid_input",
    });
    await expect(fx.harness.invoke(s.id, { mode: "prompt", message: "  " })).rejects.toMatchObject({
      code: "invalid_input",
    });
    expect(fx.store.activePath(s.id)).toEqual([]);
  });
});
