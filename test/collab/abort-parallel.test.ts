import type { LanguageModelV3 } from "@ai-sdk/provider";
import { afterEach, describe, expect, it } from "vitest";
import type { EntryOf } from "../../src/harness/store/index.js";
import type { AgentInvocationResult } from "../../src/tools/collaboration/service.js";
import {
  type CollabFixture,
  call,
  collabFixture,
  gatedTextStream,
  stubbornModel,
  toolResults,
} from "./fixture.js";

let fx: CollabFixture | undefined;
afterEach(() => {
  fx?.close();
  fx = undefined;
});

describe("abort propagation", () => {
  it("a parent's abort ends its foreground child's run even when the child's provider ignores it; late output is never recorded", async () => {
    const stubborn = stubbornModel("LATE TEXT");
    fx = collabFixture({
      "leader.default": [
        call("create_agent", { profileKey: "writer" }),
        call("invoke_agent", { sessionId: 2, message: "x", input: { path: "a.md" } }),
      ],
      writer: stubborn,
    });
    const leader = fx.root();
    const run = fx.harness.invoke(leader.id, { mode: "prompt", message: "go" });
    await stubborn.started;
    expect(fx.harness.isRunning("2")).toBe(true);
    fx.harness.abort(leader.id);
    const r = await run;
    expect(r.status).toBe("aborted");
    expect(fx.harness.isRunning("2")).toBe(false);
    expect(fx.store.session("2").status).toBe("idle");
    const ends = fx.store.allEntries("2").filter((e): e is EntryOf<"run_end"> => e.kind === "run_end");
    expect(ends.map((e) => e.data.status)).toEqual(["aborted"]);
    const invoked = toolResults(fx, leader.id).find((t) => t.key === "invoke_agent");
    expect((invoked?.details as AgentInvocationResult | undefined)?.status ?? invoked?.error?.code).toMatch(
      /aborted/,
    );

    // The provider finally answers: nothing of it reaches the session or the bus.
    const before = fx.store.allEntries("2").length;
    stubborn.release();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fx.store.allEntries("2").length).toBe(before);
    expect(JSON.stringify(fx.store.allEntries("2"))).not.toContain("LATE TEXT");
    expect(fx.events.some((e) => e.type === "text_delta" && e.text === "LATE TEXT")).toBe(false);

    // The child goes on normally afterwards.
    const next = await fx.harness.invoke("2", { mode: "prompt", message: "again" });
    expect(next.status).toBe("completed");
  });

  it("a child whose provider honours the abort ends as aborted without waiting for the grace period", async () => {
    fx = collabFixture(
      {
        "leader.default": [
          call("create_agent", { profileKey: "writer" }),
          call("invoke_agent", { sessionId: 2, message: "x", input: { path: "a.md" } }),
        ],
        writer: [{ text: "thinking", waitForAbort: true }],
      },
      // A grace period no test could wait out: the run must end because its provider stopped.
      { settings: { abortGraceMs: 600_000 } },
    );
    const leader = fx.root();
    const run = fx.harness.invoke(leader.id, { mode: "prompt", message: "go" });
    while (!fx.events.some((e) => e.type === "text_delta" && e.sessionId === "2"))
      await new Promise((resolve) => setTimeout(resolve, 5));
    fx.harness.abort(leader.id);
    expect((await run).status).toBe("aborted");
    const assistant = fx.store.activePath("2").find((e): e is EntryOf<"assistant"> => e.kind === "assistant");
    expect(assistant?.data).toMatchObject({ text: "thinking", status: "aborted" });
  });
});

/** Models that count how many of them are streaming at once, and finish when `open()` is called. */
function concurrencyProbe() {
  const probe = { inFlight: 0, max: 0, started: 0, open: () => {} };
  const gate = new Promise<void>((r) => {
    probe.open = r;
  });
  const model = (name: string): LanguageModelV3 =>
    ({
      specificationVersion: "v3",
      provider: "probe",
      modelId: name,
      supportedUrls: {},
      doGenerate: () => Promise.reject(new Error("not used")),
      doStream: async () => {
        probe.inFlight++;
        probe.started++;
        probe.max = Math.max(probe.max, probe.inFlight);
        const released = gate.then(() => {
          probe.inFlight--;
        });
        return { stream: gatedTextStream(released, `${name} done`) };
      },
    }) as unknown as LanguageModelV3;
  return { probe, model };
}

describe("foreground children in parallel", () => {
  it("one step's invoke_agent calls run their children at the same time, at most maxParallelToolCalls at once", async () => {
    const { probe, model } = concurrencyProbe();
    fx = collabFixture(
      {
        "leader.default": [
          {
            toolCalls: [2, 3, 4].map((id) => ({
              name: "invoke_agent",
              input: { sessionId: id, message: "go" },
            })),
          },
          { text: "all back" },
        ],
        retrieval: model("r1"),
        "retrieval#2": model("r2"),
        "retrieval#3": model("r3"),
      },
      { settings: { maxParallelToolCalls: 2 } },
    );
    const leader = fx.root();
    for (let i = 0; i < 3; i++)
      await fx.tool(leader.id, "create_agent", { profileKey: "retrieval", initial: { prompt: "bells" } });
    const run = fx.harness.invoke(leader.id, { mode: "prompt", message: "fan out" });
    // Two children stream together; the third waits for a free slot.
    const deadline = Date.now() + 5000;
    while (probe.started < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 30));
    expect(probe.started).toBe(2);
    expect(probe.inFlight).toBe(2);
    probe.open();
    expect((await run).status).toBe("completed");
    expect(probe.max).toBe(2);
    const texts = toolResults(fx, leader.id).map((t) => (t.details as AgentInvocationResult).finalMessage);
    expect(texts).toEqual(["r1 done", "r2 done", "r3 done"]);
  });
});
