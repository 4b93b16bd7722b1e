import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import { agentCollaboration } from "../../src/collab/plugin.js";
import { EventBus } from "../../src/harness/events.js";
import { Harness } from "../../src/harness/loop.js";
import { SessionStore } from "../../src/harness/store/index.js";
import { ProfileCatalog } from "../../src/profiles/catalog.js";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { Workspace } from "../../src/workspace/workspace.js";
import type { BenchSuite } from "../lib.js";

const STEPS = 50;
const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

const now = () => Number(process.hrtime.bigint()) / 1e6;

/** A mock model that answers instantly: `toolSteps` steps each calling `read`, then one text answer. */
function instantModel(toolSteps: number) {
  let call = 0;
  return new MockLanguageModelV3({
    doStream: async () => {
      const n = call++ % (toolSteps + 1);
      const parts: LanguageModelV3StreamPart[] = [{ type: "stream-start", warnings: [] }];
      if (n < toolSteps) {
        parts.push({
          type: "tool-call",
          toolCallId: `c${call}`,
          toolName: "read",
          input: '{"path":"AGENTS.md"}',
        });
        parts.push({ type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage });
      } else {
        parts.push(
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: "done" },
          { type: "text-end", id: "t" },
        );
        parts.push({ type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage });
      }
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        start(c) {
          for (const p of parts) c.enqueue(p);
          c.close();
        },
      });
      return { stream };
    },
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Loop overhead per step; run as part of the `harness` suite. */
export const loopFigures: BenchSuite = {
  name: "harness-loop",
  description:
    "turn loop overhead per step (mock model answering instantly; context, dispatch, step commit, events)",
  async run(report) {
    const dir = mkdtempSync(join(tmpdir(), "nb-bench-loop-"));
    const workspace = Workspace.init(dir);
    workspace.createProject("novel", { sample: true });
    const store = SessionStore.forWorkspace(workspace);
    const registry = createToolRegistry();
    const catalog = new ProfileCatalog(registry, workspace);
    try {
      for (const [name, toolSteps] of [
        ["step_with_read_call", STEPS - 1],
        ["step_text_only", 0],
      ] as const) {
        const model = instantModel(toolSteps);
        const harness = new Harness({
          collaboration: agentCollaboration(),
          workspace,
          store,
          registry,
          catalog,
          resolveModel: () => ({ ref: "mock/instant", model, contextWindow: 1_000_000 }),
          bus: new EventBus(),
          settings: { stepLimit: STEPS + 1 },
        });
        // The model call as the loop sees it: from turn_start until the loop acts on the answer (the first
        // tool_call_start, or turn_end for a text answer). That includes the provider call (doStream and
        // reading its stream) and planning the tool calls; executing them counts as loop time.
        let turnStart = 0;
        let modelMs = 0;
        harness.bus.on((e) => {
          if (e.type === "turn_start") turnStart = now();
          else if ((e.type === "tool_call_start" || e.type === "turn_end") && turnStart) {
            modelMs += now() - turnStart;
            turnStart = 0;
          }
        });
        const totals: number[] = [];
        const loops: number[] = [];
        for (let i = 0; i < 11; i++) {
          const s = harness.createSession({ profileKey: "leader.default", project: "novel" });
          modelMs = 0;
          const t0 = now();
          const r = await harness.invoke(s.id, { mode: "prompt", message: "go" });
          const total = now() - t0;
          if (i < 2) continue;
          totals.push(total / r.steps);
          loops.push((total - modelMs) / r.steps);
        }
        report({ name: `${name}_total_ms`, unit: "ms", value: median(totals) });
        report({
          name: `${name}_loop_ms`,
          unit: "ms",
          value: median(loops),
          target: "< 2 ms per step excluding the model call",
        });
      }
    } finally {
      store.close();
      workspace.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
