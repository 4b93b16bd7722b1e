import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import { afterEach, describe, expect, it } from "vitest";
import { summarize } from "../../src/harness/compaction.js";
import { callModel, modelCallLoad, setMaxConcurrentModelCalls } from "../../src/harness/stream.js";
import { parseModelsConfig } from "../../src/models/config.js";
import { openHarness } from "../../src/runtime/open.js";
import { Workspace } from "../../src/workspace/workspace.js";

afterEach(() => setMaxConcurrentModelCalls(8));

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** A model whose answers wait until released, counting how many calls are in flight at once. */
function heldModel() {
  const state = { inFlight: 0, max: 0, calls: 0, release: [] as (() => void)[] };
  const model = new MockLanguageModelV3({
    doStream: async () => {
      state.calls++;
      state.inFlight++;
      state.max = Math.max(state.max, state.inFlight);
      await new Promise<void>((r) => state.release.push(r));
      state.inFlight--;
      const parts: LanguageModelV3StreamPart[] = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "ok" },
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
      ];
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(c) {
            for (const p of parts) c.enqueue(p);
            c.close();
          },
        }),
      };
    },
  });
  return { model, state };
}

const call = (model: MockLanguageModelV3, signal?: AbortSignal) =>
  callModel({ model, system: "s", messages: [], tools: [], maxRetries: 0, signal, onText: () => {} });

const tick = () => new Promise((r) => setTimeout(r, 20));

describe("agent.maxConcurrentModelCalls", () => {
  it("keeps at most that many model calls in flight in the process; the others wait their turn", async () => {
    setMaxConcurrentModelCalls(2);
    const { model, state } = heldModel();
    const turns = Array.from({ length: 5 }, () => call(model));
    await tick();
    expect(state.calls).toBe(2);
    while (state.calls < 5 || state.release.length) {
      state.release.shift()?.();
      await tick();
    }
    const done = await Promise.all(turns);
    expect(done.map((t) => t.text)).toEqual(["ok", "ok", "ok", "ok", "ok"]);
    expect(state.max).toBe(2);
    expect(modelCallLoad()).toEqual({ inFlight: 0, limit: 2 });
  });

  it("ends a call aborted while it waits for a slot as aborted, without calling the model", async () => {
    setMaxConcurrentModelCalls(1);
    const { model, state } = heldModel();
    const first = call(model);
    const abort = new AbortController();
    const second = call(model, abort.signal);
    await tick();
    abort.abort();
    expect(await second).toMatchObject({ aborted: true, error: null, text: "" });
    expect(state.calls).toBe(1);
    state.release.shift()?.();
    expect((await first).text).toBe("ok");
  });
});

describe("a compaction summary", () => {
  it("takes a model-call slot like any model call", async () => {
    setMaxConcurrentModelCalls(1);
    const { model, state } = heldModel();
    const held = call(model);
    await tick();
    let summarised = 0;
    const summarizer = new MockLanguageModelV3({
      doGenerate: async () => {
        summarised++;
        return {
          content: [{ type: "text", text: "the summary" }],
          finishReason: { unified: "stop", raw: "stop" },
          usage,
          warnings: [],
        };
      },
    });
    const summary = summarize({
      model: summarizer,
      system: "s",
      previousSummary: null,
      entries: [],
      window: { contextWindow: 8000 },
      maxRetries: 0,
    });
    await tick();
    expect(summarised).toBe(0);
    state.release.shift()?.();
    expect(await summary).toBe("the summary");
    expect(summarised).toBe(1);
    await held;
  });
});

describe("the concurrency settings in .nbook/config.json", () => {
  it("are validated (positive integers, at most 64)", () => {
    for (const bad of [
      { maxConcurrentJobs: 0 },
      { maxConcurrentModelCalls: 65 },
      { maxConcurrentJobs: 1.5 },
    ]) {
      let code = "";
      let pointer = "";
      try {
        parseModelsConfig({ agent: bad }, "config.json");
      } catch (e) {
        code = (e as { code: string }).code;
        pointer = (e as { fields: { pointer: string }[] }).fields[0].pointer;
      }
      expect(code).toBe("config_error");
      expect(pointer).toBe(`/agent/${Object.keys(bad)[0]}`);
    }
  });

  it("reach the harness: the job cap, and the process-wide model-call cap", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nbook-limits-"));
    const workspace = Workspace.init(dir);
    const project = workspace.createProject("novel", {});
    writeFileSync(
      join(workspace.nbookDir, "config.json"),
      JSON.stringify({ agent: { maxConcurrentJobs: 1, maxConcurrentModelCalls: 3 } }),
    );
    const harness = openHarness({ workspace, project });
    try {
      expect(modelCallLoad().limit).toBe(3);
      let open!: () => void;
      const gate = new Promise<void>((r) => {
        open = r;
      });
      const spec = {
        kind: "bash" as const,
        title: "t",
        ownerSessionId: null,
        run: () => gate.then(() => ({ text: "" })),
      };
      expect([harness.jobs.start(spec).status, harness.jobs.start(spec).status]).toEqual([
        "running",
        "queued",
      ]);
      open();
      await harness.jobs.whenIdle();
    } finally {
      harness.close();
      workspace.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
