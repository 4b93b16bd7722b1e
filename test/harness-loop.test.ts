import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type HarnessFixture, harnessFixture } from "./harness-fixture.js";

let fx: HarnessFixture;
afterEach(() => fx?.close());

describe("turn loop", () => {
  it("runs a multi-step tool conversation and records it as one tree", async () => {
    fx = harnessFixture([
      {
        text: "Let me look.",
        toolCalls: [{ name: "read", input: { path: "lorebook/characters/mira-vale/index.md" } }],
      },
      {
        expect: { lastToolResult: "Mira" },
        toolCalls: [{ name: "write", input: { path: "notes/mira.md", content: "Mira hears the bell.\n" } }],
      },
      { expect: { lastToolResult: "notes/mira.md" }, text: "Done: notes/mira.md" },
    ]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "Summarise Mira into a note" });
    expect(r).toMatchObject({ status: "completed", finalMessage: "Done: notes/mira.md", steps: 3 });
    expect(readFileSync(join(fx.project.root, "notes/mira.md"), "utf8")).toBe("Mira hears the bell.\n");
    const kinds = fx.store.activePath(s.id).map((e) => e.kind);
    expect(kinds).toEqual([
      "run_start",
      "user",
      "assistant",
      "tool_result",
      "assistant",
      "tool_result",
      "assistant",
      "run_end",
    ]);
    expect(fx.store.session(s.id).status).toBe("idle");
    const types = fx.events.map((e) => e.type);
    expect(types[0]).toBe("run_start");
    expect(types.at(-1)).toBe("run_end");
    expect(types.filter((t) => t === "tool_call_end")).toHaveLength(2);
    expect(types.indexOf("text_delta")).toBeGreaterThan(types.indexOf("turn_start"));
  });

  it("offers exactly the allowlist, and a call outside it gets not_allowed without running", async () => {
    fx = harnessFixture([
      {
        expect: { tools: ["read", "switch_mode", "task_create"], notTools: ["report_result", "web_search"] },
        toolCalls: [{ name: "report_result", input: { result: "sneaky" } }],
      },
      { expect: { lastToolResult: "not_allowed" }, text: "ok" },
    ]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "go" });
    expect(r.status).toBe("completed");
    expect(r.data).toBeUndefined();
    const result = fx.store.activePath(s.id).find((e) => e.kind === "tool_result");
    expect(result?.kind === "tool_result" && result.data.error?.code).toBe("not_allowed");
  });

  it("a write tool outside the allowlist is refused with not_allowed and changes nothing, in normal mode", async () => {
    const patch = "*** Begin Patch\n*** Add File: notes/sneaky.md\n+not allowed\n*** End Patch";
    fx = harnessFixture([
      { expect: { notTools: ["apply_patch"] }, toolCalls: [{ name: "apply_patch", input: { patch } }] },
      { expect: { lastToolResult: "not_allowed" }, text: "I cannot patch files." },
      { toolCalls: [{ name: "report_result", input: { result: "nothing written" } }] },
    ]);
    const s = fx.harness.createSession({ profileKey: "writer", project: "novel" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "patch it" });
    expect(r.status).toBe("completed");
    expect(existsSync(join(fx.project.root, "notes/sneaky.md"))).toBe(false);
    expect(fx.events.some((e) => e.type === "approval_required")).toBe(false);
  });

  it("returns tool errors to the model without ending the run", async () => {
    fx = harnessFixture([
      {
        toolCalls: [
          { name: "read", input: { path: "../outside.md" } },
          { name: "read", input: { nope: 1 } },
        ],
      },
      { expect: { lastToolResult: "invalid_input" }, text: "recovered" },
    ]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "go" });
    expect(r).toMatchObject({ status: "completed", finalMessage: "recovered" });
    const codes = fx.store
      .activePath(s.id)
      .flatMap((e) => (e.kind === "tool_result" ? [e.data.error?.code] : []));
    expect(codes).toEqual(["path_escape", "invalid_input"]);
    const text = JSON.stringify(fx.store.activePath(s.id));
    expect(text).not.toContain(fx.dir);
  });

  it("stops at the step limit", async () => {
    const loop = { toolCalls: [{ name: "read", input: { path: "AGENTS.md" } }] };
    fx = harnessFixture([loop, loop, loop, loop], { settings: { stepLimit: 3 } });
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "loop" });
    expect(r).toMatchObject({ status: "step_limit", steps: 3 });
    expect(fx.model.remaining).toBe(1);
  });
});

describe("modes and approvals", () => {
  const writeTurn = {
    toolCalls: [{ name: "write", input: { path: "notes/idea.md", content: "An idea.\n" } }],
  };

  it("discuss mode suspends a write; approving runs exactly that call and the model sees its real result", async () => {
    fx = harnessFixture([writeTurn, { expect: { lastToolResult: "notes/idea.md" }, text: "written" }]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel", mode: "discuss" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "write it" });
    expect(r.status).toBe("waiting");
    expect(r.pending).toMatchObject({ kind: "write", tool: "write" });
    expect(r.pending?.preview).toContain("An idea.");
    expect(existsSync(join(fx.project.root, "notes/idea.md"))).toBe(false);
    expect(fx.store.session(s.id).status).toBe("waiting");
    expect(fx.events.some((e) => e.type === "approval_required")).toBe(true);
    await expect(fx.harness.invoke(s.id, { mode: "prompt", message: "hello?" })).rejects.toMatchObject({
      code: "conflict",
    });

    const done = await fx.harness.settle(s.id, r.pending!.approvalId, { approved: true });
    expect(done).toMatchObject({ status: "completed", finalMessage: "written" });
    expect(readFileSync(join(fx.project.root, "notes/idea.md"), "utf8")).toBe("An idea.\n");
    expect(fx.store.session(s.id).mode).toBe("discuss");
    await expect(fx.harness.settle(s.id, r.pending!.approvalId, { approved: true })).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("rejecting a write gives the model a rejection result and writes nothing", async () => {
    fx = harnessFixture([writeTurn, { expect: { lastToolResult: "rejected" }, text: "understood" }]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel", mode: "discuss" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "write it" });
    const done = await fx.harness.settle(s.id, r.pending!.approvalId, { approved: false, reason: "not yet" });
    expect(done.status).toBe("completed");
    expect(existsSync(join(fx.project.root, "notes/idea.md"))).toBe(false);
    const result = fx.store
      .activePath(s.id)
      .filter((e) => e.kind === "tool_result")
      .at(-1);
    expect(result?.kind === "tool_result" && result.data.text).toContain("not yet");
    expect(fx.store.approval(r.pending!.approvalId).status).toBe("rejected");
  });

  it("plan mode lets Markdown under .agent/plan/ through and stops other writes", async () => {
    fx = harnessFixture([
      { toolCalls: [{ name: "write", input: { path: ".agent/plan/ch3.md", content: "# Plan\n" } }] },
      writeTurn,
    ]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel", mode: "plan" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "plan" });
    expect(readFileSync(join(fx.project.root, ".agent/plan/ch3.md"), "utf8")).toBe("# Plan\n");
    expect(r.status).toBe("waiting");
    expect(r.pending?.tool).toBe("write");
  });

  it("skips the calls after a suspended one in the same step", async () => {
    fx = harnessFixture([
      {
        toolCalls: [
          { name: "write", input: { path: "a.md", content: "a" } },
          { name: "read", input: { path: "AGENTS.md" } },
        ],
      },
      { text: "ok" },
    ]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel", mode: "discuss" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "go" });
    const skipped = fx.store.activePath(s.id).find((e) => e.kind === "tool_result");
    expect(skipped?.kind === "tool_result" && skipped.data.text).toMatch(/^Skipped/);
    expect((await fx.harness.settle(s.id, r.pending!.approvalId, { approved: true })).status).toBe(
      "completed",
    );
  });

  it("switch_mode asks the user; approval changes the mode, and the same mode is a no-op error without asking", async () => {
    fx = harnessFixture([
      { toolCalls: [{ name: "switch_mode", input: { mode: "plan", reason: "already planning" } }] },
      {
        expect: { lastToolResult: "Already in plan mode" },
        toolCalls: [{ name: "switch_mode", input: { mode: "normal", reason: "the plan is ready" } }],
      },
      { expect: { system: "NORMAL mode" }, text: "switched" },
    ]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel", mode: "plan" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "go" });
    expect(r.status).toBe("waiting");
    expect(r.pending).toMatchObject({ kind: "switch_mode", tool: "switch_mode" });
    expect(r.pending?.preview).toContain("the plan is ready");
    expect(fx.store.session(s.id).mode).toBe("plan");
    const done = await fx.harness.settle(s.id, r.pending!.approvalId, { approved: true });
    expect(done).toMatchObject({ status: "completed", finalMessage: "switched" });
    expect(fx.store.session(s.id).mode).toBe("normal");
    expect(fx.events.some((e) => e.type === "mode_changed" && e.by === "agent" && e.to === "normal")).toBe(
      true,
    );
  });

  it("a rejected switch_mode leaves the mode unchanged", async () => {
    fx = harnessFixture([
      { toolCalls: [{ name: "switch_mode", input: { mode: "normal", reason: "execute" } }] },
      { expect: { lastToolResult: "declined" }, text: "staying" },
    ]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel", mode: "discuss" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "go" });
    const done = await fx.harness.settle(s.id, r.pending!.approvalId, { approved: false });
    expect(done).toMatchObject({ status: "completed", finalMessage: "staying" });
    expect(fx.store.session(s.id).mode).toBe("discuss");
    expect(fx.store.approval(r.pending!.approvalId).status).toBe("rejected");
  });

  it("request_user_input suspends and the answer becomes the tool result", async () => {
    fx = harnessFixture([
      {
        toolCalls: [
          {
            name: "request_user_input",
            input: { question: "Whose point of view?", choices: ["Mira", "Tomas"], allowFreeText: false },
          },
        ],
      },
      { expect: { lastToolResult: "The user answered: Tomas" }, text: "Tomas it is" },
    ]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "draft" });
    expect(r.status).toBe("waiting");
    expect(r.pending).toMatchObject({ kind: "user_input" });
    expect(r.pending?.preview).toContain("2. Tomas");
    expect(fx.events.some((e) => e.type === "user_input_required")).toBe(true);
    const done = await fx.harness.settle(s.id, r.pending!.approvalId, { approved: true, answer: "2" });
    expect(done.finalMessage).toBe("Tomas it is");
  });

  it("a session started in plan mode explains plan mode in full on its first call, then hints", async () => {
    fx = harnessFixture([
      { expect: { system: "now in PLAN mode" }, text: "a" },
      { expect: { system: "Mode: plan (read-only except Markdown under .agent/plan/" }, text: "b" },
    ]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel", mode: "plan" });
    expect((await fx.harness.invoke(s.id, { mode: "prompt", message: "one" })).finalMessage).toBe("a");
    expect((await fx.harness.invoke(s.id, { mode: "prompt", message: "two" })).finalMessage).toBe("b");
    expect(JSON.stringify(fx.model.calls[1].prompt)).not.toContain("now in PLAN mode");
  });

  it("/mode is recorded as an entry, the model gets the full explanation once, then a hint", async () => {
    fx = harnessFixture([
      { expect: { system: "now in DISCUSS mode" }, text: "a" },
      { expect: { system: "Mode: discuss (read-only" }, text: "b" },
    ]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    expect(fx.harness.setMode(s.id, "discuss")).toBe(true);
    expect(fx.harness.setMode(s.id, "discuss")).toBe(false);
    expect((await fx.harness.invoke(s.id, { mode: "prompt", message: "one" })).finalMessage).toBe("a");
    expect((await fx.harness.invoke(s.id, { mode: "prompt", message: "two" })).finalMessage).toBe("b");
    expect(fx.store.activePath(s.id).filter((e) => e.kind === "mode_change")).toHaveLength(1);
  });
});

describe("step scheduling", () => {
  it("runs the read calls of a step concurrently, and every call in order once one may write", async () => {
    const { z } = await import("zod");
    const { defineTool } = await import("../src/tools/define.js");
    let running = 0;
    let most = 0;
    const probe = (key: string, effect: "read" | "write") =>
      defineTool({
        key,
        group: "files",
        description: "test probe",
        input: z.object({}).strict(),
        effect,
        execute: async () => {
          running++;
          most = Math.max(most, running);
          await new Promise((r) => setTimeout(r, 20));
          running--;
          return { text: "probed" };
        },
      });
    const call = (name: string) => ({ name, input: {} });
    fx = harnessFixture(
      [
        { toolCalls: [call("probe_read"), call("probe_read"), call("probe_read")] },
        { text: "a" },
        { toolCalls: [call("probe_read"), call("probe_write"), call("probe_read")] },
        { text: "b" },
      ],
      {
        tools: [probe("probe_read", "read"), probe("probe_write", "write")],
        // Overrides a built-in key: a user profile with a new key gets no `initial` schema (catalog bug, reported).
        profiles: {
          "prober.yaml":
            "key: world.engine\nname: Prober\ntools: [probe_read, probe_write]\nprompt: Probe.\n",
        },
      },
    );
    const s = fx.harness.createSession({ profileKey: "world.engine", project: "novel" });
    await fx.harness.invoke(s.id, { mode: "prompt", message: "reads" });
    expect(most).toBe(3);
    most = 0;
    await fx.harness.invoke(s.id, { mode: "prompt", message: "mixed" });
    expect(most).toBe(1);
  });
});
