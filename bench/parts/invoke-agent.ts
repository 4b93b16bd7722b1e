import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LanguageModelV3, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { agentCollaboration } from "../../src/collab/plugin.js";
import { AgentCollaboration } from "../../src/collab/service.js";
import { EventBus } from "../../src/harness/events.js";
import { Harness } from "../../src/harness/loop.js";
import { SessionStore } from "../../src/harness/store/index.js";
import { ProfileCatalog } from "../../src/profiles/catalog.js";
import { dispatch } from "../../src/tools/dispatch.js";
import { loadToolRegistry } from "../../src/tools/groups.js";
import { Workspace } from "../../src/workspace/workspace.js";
import type { BenchSuite } from "../lib.js";

type Report = Parameters<BenchSuite["run"]>[0];

const CALLS = 200;
const now = () => Number(process.hrtime.bigint()) / 1e6;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** A model that answers at once with one text, and records how long its own calls took. */
function instantModel(spent: { ms: number }): LanguageModelV3 {
  const usage = {
    inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 2, text: 2, reasoning: undefined },
  };
  return {
    specificationVersion: "v3",
    provider: "bench",
    modelId: "instant",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("not used")),
    doStream: async () => {
      const t0 = now();
      const parts: LanguageModelV3StreamPart[] = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "Done." },
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
      ];
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        start(c) {
          for (const p of parts) c.enqueue(p);
          c.close();
        },
      });
      spent.ms += now() - t0;
      return { stream };
    },
  } as LanguageModelV3;
}

/**
 * A foreground invoke_agent call, through dispatch and the collaboration service, of a child that
 * answers at once: the ownership check, admission, the child's whole run (its entries, one model
 * call) and the compact result. The model's own time is subtracted. Baseline: the same child run
 * invoked directly on the harness, as the user's CLI does (no delegation layer).
 */
export async function invokeAgentFigures(report: Report): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "nb-bench-collab-"));
  const workspace = Workspace.init(dir);
  workspace.createProject("novel", {});
  // A child profile without an output schema: one model call per invocation, no report reminder.
  writeFileSync(
    join(workspace.nbookDir, "agent", "profiles", "helper.yaml"),
    "key: helper\nname: Helper\ndescription: Answers at once.\ntools: [read]\nprompt: You answer briefly.\n",
  );
  const store = SessionStore.forWorkspace(workspace);
  // Only the groups the figure uses: the leader dispatches invoke_agent, the child may read.
  const registry = await loadToolRegistry(["read", "invoke_agent"]);
  const catalog = new ProfileCatalog(registry, workspace);
  const spent = { ms: 0 };
  const model = instantModel(spent);
  const harness = new Harness({
    collaboration: agentCollaboration(),
    workspace,
    store,
    registry,
    catalog,
    resolveModel: (ref) => ({ ref: ref ?? "bench/instant", model, contextWindow: 128_000 }),
    bus: new EventBus(),
  });
  try {
    const leader = harness.createSession({ profileKey: "leader.default", project: "novel" });
    const collab = new AgentCollaboration(harness, leader.id, "bench-call", "normal");
    const dctx = {
      registry,
      workspace,
      project: workspace.project("novel"),
      mode: "normal" as const,
      profileKey: "leader.default",
      allow: catalog.allowlist("leader.default"),
      session: {
        id: leader.id,
        profileKey: "leader.default",
        initial: {},
        services: { collab },
      },
    };
    // Each call on a fresh child (made before the clock starts, detached after it stops: a session
    // holds at most 32), so no figure includes a history grown by the benchmark itself.
    const fresh = () => collab.create({ profileKey: "helper", initial: {} });
    const viaTool = async () => {
      const child = fresh();
      spent.ms = 0;
      const t0 = now();
      const r = await dispatch(
        { key: "invoke_agent", input: { sessionId: child.sessionId, message: "Hi" } },
        dctx,
      );
      const ms = now() - t0 - spent.ms;
      if (!r.ok || (r.details as { status: string }).status !== "completed")
        throw new Error(JSON.stringify(r));
      collab.detach(child.sessionId);
      return ms;
    };
    const direct = async () => {
      const child = fresh();
      spent.ms = 0;
      const t0 = now();
      const r = await harness.invoke(child.sessionId, { mode: "prompt", message: "Hi" });
      const ms = now() - t0 - spent.ms;
      if (r.status !== "completed") throw new Error(JSON.stringify(r));
      collab.detach(child.sessionId);
      return ms;
    };
    for (let i = 0; i < 10; i++) await viaTool();
    const tool: number[] = [];
    const plain: number[] = [];
    // Alternating, so a shared machine's load hits both alike.
    for (let i = 0; i < CALLS; i++) {
      tool.push(await viaTool());
      plain.push(await direct());
    }
    const value = median(tool);
    const baseline = median(plain);
    report({
      name: "invoke_agent_foreground_overhead_ms",
      unit: "ms",
      value,
      baseline,
      ratio: baseline / value,
      target: "< 5 ms (model time excluded; baseline: the same child run invoked directly)",
    });
  } finally {
    harness.close();
    workspace.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
