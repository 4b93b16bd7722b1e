import { afterEach, describe, expect, it } from "vitest";
import type {
  AgentInvocationResult,
  AgentSummary,
  SessionView,
} from "../../src/tools/collaboration/service.js";
import { type CollabFixture, call, collabFixture, stubbornModel, toolResults } from "./fixture.js";

let fx: CollabFixture | undefined;
afterEach(() => {
  fx?.close();
  fx = undefined;
});

describe("create_agent", () => {
  it("refuses system_only profiles and creates nothing", async () => {
    fx = collabFixture({});
    const leader = fx.root();
    for (const profileKey of ["summarizer", "memory.curator"]) {
      const r = await fx.tool(leader.id, "create_agent", { profileKey });
      expect(!r.ok && r.error.code, profileKey).toBe("not_allowed");
      expect(!r.ok && r.error.message).toContain("system_only");
    }
    expect(fx.store.listSessions().map((s) => s.id)).toEqual([leader.id]);
  });

  it("checks initial strictly against the profile, with JSON Pointers relative to it", async () => {
    fx = collabFixture({});
    const leader = fx.root();
    const bad = await fx.tool(leader.id, "create_agent", {
      profileKey: "director",
      initial: { mode: "bogus", extra: 1 },
    });
    expect(!bad.ok && bad.error.code).toBe("invalid_input");
    expect(!bad.ok && bad.error.fields?.map((f) => f.pointer).sort()).toEqual(["/extra", "/mode"]);
    expect(!bad.ok && bad.error.message).toContain("/extra: unknown field");
    const missing = await fx.tool(leader.id, "create_agent", { profileKey: "retrieval", initial: {} });
    expect(!missing.ok && missing.error.fields).toEqual([{ pointer: "/prompt", message: "required" }]);
    // No coercion: a number is not a string.
    const typed = await fx.tool(leader.id, "create_agent", {
      profileKey: "retrieval",
      initial: { prompt: 7 },
    });
    expect(!typed.ok && typed.error.fields?.[0].pointer).toBe("/prompt");
    // A JSON string is not an object: refused by the tool's own schema, at /initial.
    const stringified = await fx.tool(leader.id, "create_agent", {
      profileKey: "retrieval",
      initial: '{"prompt":"x"}',
    });
    expect(!stringified.ok && stringified.error.fields?.[0].pointer).toBe("/initial");
    expect(fx.store.listSessions()).toHaveLength(1);
  });

  it("get_agent_profile shows schemas and whether create_agent may use the profile", async () => {
    fx = collabFixture({});
    const leader = fx.root();
    const writer = await fx.tool(leader.id, "get_agent_profile", { profileKey: "writer" });
    expect(writer.ok && writer.details).toMatchObject({
      key: "writer",
      creationMode: "public",
      createAgentAllowed: true,
      PayloadSchema: { type: "object", required: ["path"] },
    });
    const summarizer = await fx.tool(leader.id, "get_agent_profile", { profileKey: "summarizer" });
    expect(summarizer.ok && summarizer.details).toMatchObject({ createAgentAllowed: false });
    expect(JSON.stringify(writer.ok && writer.details)).not.toMatch(/systemPrompt|\.ts"/);
  });
});

describe("invoke_agent input and results", () => {
  it("checks the payload strictly with pointers, and refuses input for a profile without a payload", async () => {
    fx = collabFixture({});
    const leader = fx.root();
    await fx.tool(leader.id, "create_agent", { profileKey: "writer" });
    await fx.tool(leader.id, "create_agent", { profileKey: "director" });
    const r = await fx.tool(leader.id, "invoke_agent", {
      sessionId: 2,
      input: { chapterId: 3, extra: true },
    });
    expect(!r.ok && r.error.code).toBe("invalid_input");
    expect(!r.ok && r.error.fields?.map((f) => f.pointer).sort()).toEqual(["/chapterId", "/extra", "/path"]);
    const none = await fx.tool(leader.id, "invoke_agent", { sessionId: 3, input: { x: 1 } });
    expect(!none.ok && none.error.fields).toEqual([
      { pointer: "/input", message: "not accepted by this profile" },
    ]);
    expect(fx.store.activePath("2")).toEqual([]);
  });

  it("model must be one the config makes visible to agents", async () => {
    fx = collabFixture({ writer: [{ text: "hi" }, { text: "hi" }] }, { visibleModels: ["local/qwen"] });
    const leader = fx.root();
    await fx.tool(leader.id, "create_agent", { profileKey: "writer" });
    const hidden = await fx.tool(leader.id, "invoke_agent", {
      sessionId: 2,
      message: "x",
      model: "openai/gpt",
    });
    expect(!hidden.ok && hidden.error).toMatchObject({
      code: "not_allowed",
      fields: [{ pointer: "/model" }],
    });
    expect(fx.store.activePath("2")).toEqual([]);
    const ok = await fx.tool(leader.id, "invoke_agent", { sessionId: 2, message: "x", model: "local/qwen" });
    expect(ok.ok).toBe(true);
    // The override is for this call only.
    expect(fx.store.session("2").model).toBe("scripted/writer");
  });

  it("clips a final message over 64 KiB and says how much was cut", async () => {
    const long = "é".repeat(40_000); // 80,000 bytes
    fx = collabFixture({ retrieval: [call("report_result", { result: long })] });
    const leader = fx.root();
    await fx.tool(leader.id, "create_agent", { profileKey: "retrieval", initial: { prompt: "p" } });
    const r = await fx.tool(leader.id, "invoke_agent", { sessionId: 2, message: "go" });
    const d = (r.ok && r.details) as AgentInvocationResult;
    expect(d.status).toBe("completed");
    expect(Buffer.byteLength(d.finalMessage)).toBe(64 * 1024);
    expect(d.finalMessageOmittedBytes).toBe(80_000 - 64 * 1024);
    expect(r.ok && r.text.slice(0, 200)).toContain(`${80_000 - 64 * 1024} more bytes were cut`);
  });
});

describe("get_agent and get_session", () => {
  it("report each agent's real status: idle, running, waiting, error", async () => {
    const busy = stubbornModel("slow");
    fx = collabFixture({
      writer: [{ text: "fine" }, { text: "fine" }],
      "writer#2": busy,
      "writer#3": [{ toolCalls: [{ name: "write", input: { path: "x.md", content: "x" } }] }],
      "writer#4": [{ error: "provider down" }],
    });
    const leader = fx.root("leader.default", { mode: "discuss" });
    for (let i = 0; i < 4; i++) await fx.tool(leader.id, "create_agent", { profileKey: "writer" });
    await fx.tool(leader.id, "invoke_agent", { sessionId: 2, message: "x", input: { path: "a.md" } });
    const running = fx.tool(leader.id, "invoke_agent", {
      sessionId: 3,
      message: "x",
      input: { path: "a.md" },
    });
    await busy.started;
    await fx.tool(leader.id, "invoke_agent", { sessionId: 4, message: "x", input: { path: "x.md" } });
    await fx.tool(leader.id, "invoke_agent", { sessionId: 5, message: "x", input: { path: "a.md" } });
    const listed = await fx.tool(leader.id, "get_agent", {});
    const agents = (listed.ok && (listed.details as { agents: AgentSummary[] }).agents) || [];
    expect(agents.map((a) => [a.sessionId, a.status])).toEqual([
      ["2", "idle"],
      ["3", "running"],
      ["4", "waiting"],
      ["5", "error"],
    ]);
    expect(agents[2].pending).toMatchObject({ kind: "write", tool: "write" });
    expect(agents[3].lastRun?.status).toBe("error");
    busy.release();
    await running;
    const after = await fx.tool(leader.id, "get_agent", { sessionId: 3 });
    expect(after.ok && (after.details as AgentSummary).status).toBe("idle");
  });

  it("get_session shows metadata, linked agents and recent messages within the budget", async () => {
    fx = collabFixture({ writer: [{ text: "A".repeat(450) }, { text: "done" }] });
    const leader = fx.root();
    await fx.tool(leader.id, "create_agent", { profileKey: "writer" });
    await fx.tool(leader.id, "invoke_agent", { sessionId: 2, message: "first", input: { path: "a.md" } });
    const r = await fx.tool(leader.id, "get_session", {
      sessionId: 2,
      includeRecentMessages: true,
      recentMessageLimit: 10,
      recentMessageRoles: ["assistant"],
      tokenBudget: 100,
    });
    const v = (r.ok && r.details) as SessionView;
    expect(v.metadata).toMatchObject({ sessionId: "2", profileKey: "writer", parentSessionId: leader.id });
    expect(v.recentMessages?.map((m) => m.text)).toEqual(["done"]);
    expect(v.omittedMessages).toBe(1);
    const own = await fx.tool(leader.id, "get_session", {});
    expect(own.ok && (own.details as SessionView).linkedAgents.map((a) => a.sessionId)).toEqual(["2"]);
    const badRoles = await fx.tool(leader.id, "get_session", { recentMessageRoles: ["user", "user"] });
    expect(!badRoles.ok && badRoles.error.code).toBe("invalid_input");
  });
});

describe("tool results in the parent's session", () => {
  it("records the compact invocation result, without run ids or raw usage", async () => {
    fx = collabFixture({
      "leader.default": [
        call("create_agent", { profileKey: "writer" }),
        call("invoke_agent", { sessionId: 2, message: "x", input: { path: "a.md" } }),
        { text: "ok" },
      ],
      writer: [call("report_result", { result: "done" })],
    });
    const leader = fx.root();
    await fx.harness.invoke(leader.id, { mode: "prompt", message: "go" });
    const d = toolResults(fx, leader.id)[1].details as Record<string, unknown>;
    expect(Object.keys(d).sort()).toEqual(["data", "finalMessage", "sessionId", "stats", "status"]);
    expect(Object.keys(d.stats as object).sort()).toEqual([
      "elapsedMs",
      "inputTokens",
      "outputTokens",
      "steps",
    ]);
    expect(JSON.stringify(d)).not.toMatch(/runId|invocationId/);
  });
});
