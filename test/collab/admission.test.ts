import { afterEach, describe, expect, it } from "vitest";
import { admit } from "../../src/collab/admission.js";
import type { NbError } from "../../src/core/errors.js";
import type { EntryOf } from "../../src/harness/store/index.js";
import { type CollabFixture, collabFixture, stubbornModel, toolResults } from "./fixture.js";

const msg = { hasMessage: true, hasInput: false, hasModel: false };
const none = { hasMessage: false, hasInput: false, hasModel: false };

function refusal(f: () => unknown): { code: string; reason?: string; pointer?: string } {
  try {
    f();
  } catch (e) {
    const err = e as NbError;
    return {
      code: err.code,
      reason: (err.details as { reason?: string } | undefined)?.reason,
      pointer: err.fields?.[0]?.pointer,
    };
  }
  throw new Error("expected a refusal");
}

describe("the admission matrix", () => {
  it("idle: prompt and continue run, steer and followup need an active invocation", () => {
    expect(admit("idle", { mode: "prompt", ...msg })).toEqual({ action: "run" });
    expect(admit("idle", { mode: "prompt", ...none, hasInput: true })).toEqual({ action: "run" });
    expect(admit("idle", { mode: "continue", ...none })).toEqual({ action: "run" });
    for (const mode of ["steer", "followup"] as const) {
      expect(refusal(() => admit("idle", { mode, ...msg }))).toEqual({
        code: "conflict",
        reason: "active_invocation_required",
        pointer: undefined,
      });
    }
  });

  it("running: prompt and followup queue, steer joins the run, continue is refused", () => {
    expect(admit("running", { mode: "prompt", ...msg })).toEqual({ action: "queue", queue: "prompt" });
    expect(admit("running", { mode: "followup", ...msg })).toEqual({ action: "queue", queue: "followup" });
    expect(admit("running", { mode: "steer", ...msg })).toEqual({ action: "queue", queue: "steer" });
    expect(refusal(() => admit("running", { mode: "continue", ...none }))).toMatchObject({
      code: "conflict",
      reason: "active_invocation_exists",
    });
  });

  it("waiting on the user: every mode is refused", () => {
    for (const mode of ["prompt", "steer", "followup"] as const) {
      expect(refusal(() => admit("waiting", { mode, ...msg }))).toMatchObject({ reason: "waiting_for_user" });
    }
    expect(refusal(() => admit("waiting", { mode: "continue", ...none }))).toMatchObject({
      reason: "waiting_for_user",
    });
  });

  it("continue with a message or input, steer with a model, and a message-less prompt are input errors", () => {
    expect(refusal(() => admit("idle", { mode: "continue", ...msg }))).toMatchObject({
      code: "invalid_input",
      pointer: "/message",
    });
    expect(refusal(() => admit("idle", { mode: "continue", ...none, hasInput: true }))).toMatchObject({
      code: "invalid_input",
      pointer: "/input",
    });
    expect(refusal(() => admit("running", { mode: "steer", ...msg, hasModel: true }))).toMatchObject({
      code: "invalid_input",
      pointer: "/model",
    });
    for (const mode of ["prompt", "steer", "followup"] as const) {
      expect(refusal(() => admit("running", { mode, ...none }))).toMatchObject({
        code: "invalid_input",
        pointer: "/message",
      });
    }
  });
});

let fx: CollabFixture | undefined;
afterEach(() => {
  fx?.close();
  fx = undefined;
});

describe("invoke_agent applies the matrix to real sessions", () => {
  it("idle child: steer and followup are refused, continue with a message is an input error", async () => {
    fx = collabFixture({});
    const leader = fx.root();
    const child = (await fx.tool(leader.id, "create_agent", { profileKey: "writer" })).ok ? "2" : "";
    for (const mode of ["steer", "followup"]) {
      const r = await fx.tool(leader.id, "invoke_agent", { sessionId: child, mode, message: "x" });
      expect(!r.ok && r.error).toMatchObject({
        code: "conflict",
        details: { reason: "active_invocation_required" },
      });
    }
    const c = await fx.tool(leader.id, "invoke_agent", { sessionId: child, mode: "continue", message: "x" });
    expect(!c.ok && c.error.fields).toEqual([
      { pointer: "/message", message: "not allowed with mode continue" },
    ]);
    expect(fx.store.activePath(child)).toEqual([]);
  });

  it("busy child: prompt, followup and steer are accepted as queued, continue is refused, and they run after", async () => {
    const busy = stubbornModel("working");
    fx = collabFixture({
      writer: busy,
      "leader.default": [
        {
          toolCalls: [
            { name: "invoke_agent", input: { sessionId: 2, message: "queued prompt" } },
            { name: "invoke_agent", input: { sessionId: 2, mode: "followup", message: "queued followup" } },
            { name: "invoke_agent", input: { sessionId: 2, mode: "steer", message: "a steer" } },
            { name: "invoke_agent", input: { sessionId: 2, mode: "continue" } },
          ],
        },
        { text: "done" },
      ],
    });
    const leader = fx.root();
    await fx.tool(leader.id, "create_agent", { profileKey: "writer" });
    // The user runs the writer; the leader invokes it while that run waits on its model.
    const childRun = fx.harness.invoke("2", { mode: "prompt", message: "user's own work" });
    await busy.started;
    const r = await fx.harness.invoke(leader.id, { mode: "prompt", message: "go" });
    expect(r.status).toBe("completed");
    const calls = toolResults(fx, leader.id);
    expect(calls.slice(0, 3).map((c) => (c.details as { status: string }).status)).toEqual([
      "queued",
      "queued",
      "queued",
    ]);
    expect(calls[3]).toMatchObject({
      ok: false,
      error: { code: "conflict", details: { reason: "active_invocation_exists" } },
    });
    busy.release();
    expect((await childRun).status).toBe("completed");
    const users = fx.store
      .activePath("2")
      .filter((e): e is EntryOf<"user"> => e.kind === "user" && !e.data.text.startsWith("You ended without"))
      .map((e) => [e.data.intent, e.data.text]);
    expect(users).toEqual([
      ["prompt", "user's own work"],
      ["steer", "a steer"],
      ["prompt", "queued prompt"],
      ["followup", "queued followup"],
    ]);
  });

  it("a child waiting on the user refuses every mode", async () => {
    fx = collabFixture({
      writer: [{ toolCalls: [{ name: "write", input: { path: "a.md", content: "a" } }] }],
    });
    const leader = fx.root("leader.default", { mode: "discuss" });
    await fx.tool(leader.id, "create_agent", { profileKey: "writer" });
    const w = await fx.tool(leader.id, "invoke_agent", {
      sessionId: "2",
      message: "write a",
      input: { path: "a.md" },
    });
    expect(w.ok && (w.details as { status: string }).status).toBe("waiting");
    for (const input of [
      { message: "more" },
      { mode: "followup", message: "more" },
      { mode: "steer", message: "more" },
      { mode: "continue" },
    ]) {
      const r = await fx.tool(leader.id, "invoke_agent", { sessionId: "2", ...input });
      expect(!r.ok && r.error).toMatchObject({ code: "conflict", details: { reason: "waiting_for_user" } });
    }
  });
});
