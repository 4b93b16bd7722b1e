import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { agentCollaboration } from "../../src/collab/plugin.js";
import { AgentCollaboration } from "../../src/collab/service.js";
import { Harness } from "../../src/harness/loop.js";
import { SessionStore } from "../../src/harness/store/index.js";
import { scriptedModel } from "../../src/models/index.js";
import { ProfileCatalog } from "../../src/profiles/catalog.js";
import { toolPorts } from "../../src/runtime/ports.js";
import { harnessToolPort } from "../../src/runtime/workflow-tools.js";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { DEFAULT_WORKFLOW_SETTINGS, type WorkflowSettings } from "../../src/workflows/config.js";
import type { ActivityHost } from "../../src/workflows/engine/activity-host.js";
import { WorkflowHost } from "../../src/workflows/host/activities.js";
import { collaborationPort } from "../../src/workflows/host/agent-port.js";
import { closeWorkflowSandbox, runWorkflowPass } from "../../src/workflows/sandbox/index.js";
import type { JournalEntry } from "../../src/workflows/sandbox/protocol.js";
import { WorkflowRuns } from "../../src/workflows/service.js";
import { WorkflowStore } from "../../src/workflows/store/index.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { type BenchSuite, intOption } from "../lib.js";

const SETTINGS: WorkflowSettings = {
  ...DEFAULT_WORKFLOW_SETTINGS,
  budget: { maxInvocations: 100_000, maxTokens: 10 ** 12 },
};

/** A script of `n` sequential agent invocations on one session, then one more. */
function sequential(n: number): string {
  return `export default async function run(wf) {
    const out = [];
    for (let i = 0; i < ${n}; i++) out.push((await wf.agents.invoke("s", { message: "m" + i })).message);
    out.push((await wf.agents.invoke("s", { message: "next" })).message);
    return out.length;
  }`;
}

/** The journal entry of invocation `i` as the sandbox fingerprints it (sorted-key JSON). */
function invoked(i: number): JournalEntry {
  return {
    seq: i,
    kind: "session.invoke",
    fp: JSON.stringify({ message: `m${i}`, sessionId: "s" }),
    ok: true,
    value: { status: "completed", message: `answer ${i}`, data: null },
  };
}

function ms(t0: bigint): number {
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** A harness on a scripted model slowed to `latencyMs` per call, counting calls in flight. */
function slowHarness(dir: string, latencyMs: number, turns: number) {
  const workspace = Workspace.init(dir);
  const project = workspace.createProject("novel");
  const sessions = SessionStore.forWorkspace(workspace);
  const registry = createToolRegistry();
  const catalog = new ProfileCatalog(registry, workspace, project);
  const base = scriptedModel({
    profiles: { adhoc: Array.from({ length: turns }, () => ({ text: "done" })) },
  });
  const seen = { running: 0, max: 0 };
  const harness = new Harness({
    collaboration: agentCollaboration(),
    ports: toolPorts(),
    workspace,
    store: sessions,
    registry,
    catalog,
    resolveModel: (ref, profileKey, sessionId) => {
      const inner = base.forCaller({ sessionId, profileKey });
      const slow: LanguageModelV3 = Object.create(inner, {
        doStream: {
          value: async (opts: Parameters<LanguageModelV3["doStream"]>[0]) => {
            seen.running++;
            seen.max = Math.max(seen.max, seen.running);
            await new Promise((r) => setTimeout(r, latencyMs));
            seen.running--;
            return inner.doStream(opts);
          },
        },
      });
      return { ref: ref ?? "scripted/bench", model: slow, contextWindow: 128_000 };
    },
  });
  return { workspace, project, sessions, harness, seen };
}

export const suite: BenchSuite = {
  name: "workflows",
  description:
    "workflow engine: resume from a 500-activity journal, journal and replay cost per activity, an 8-way fan-out at concurrency 4 with a 100 ms model",
  async run(report, options) {
    const n = intOption(options, "activities", 500);
    const dir = mkdtempSync(join(tmpdir(), "nb-bench-wf-"));
    try {
      const workspace = Workspace.init(join(dir, "ws"));
      const project = workspace.createProject("novel");
      const store = WorkflowStore.open(join(dir, "workflows.sqlite"));
      const journal = Array.from({ length: n }, (_, i) => invoked(i));
      const limits = { timeoutMs: 30_000, memoryBytes: 64 * 1024 * 1024 };
      // Warm the sandbox worker: a resume in a running process finds it started.
      await runWorkflowPass({
        source: sequential(1),
        filename: "workflow.js",
        args: {},
        journal: [],
        concurrency: SETTINGS.concurrency,
        limits,
      });

      // 1. Resume: a run with n journaled activities, from its record to its next new activity. The
      // first resume pays for compiling QuickJS's WebAssembly in the worker (a fresh process); the
      // median is taken once the worker is warm (a process that has run workflows: chat, serve).
      const resumeOnce = async (): Promise<number> => {
        let reached = 0;
        let t0 = 0n;
        const host: ActivityHost = {
          run: (_kind, params, ctx) => {
            if ((params as { message: string }).message === "next" && !reached) reached = ms(t0);
            return new Promise((_, reject) =>
              ctx.signal.addEventListener("abort", () => reject(new Error("stopped"))),
            );
          },
        };
        const runs = new WorkflowRuns({ workspace, project, store, host, settings: SETTINGS });
        const run = await runs.start({ target: { script: sequential(n) } });
        store.appendJournal(run.id, journal);
        const controller = new AbortController();
        t0 = process.hrtime.bigint();
        const driving = runs.drive(run.id, controller.signal);
        while (!reached) await new Promise((r) => setImmediate(r));
        controller.abort();
        await driving;
        return reached;
      };
      report({
        name: `resume_${n}_journaled_to_next_activity_cold_ms`,
        unit: "ms",
        value: await resumeOnce(),
      });
      for (let k = 0; k < 10; k++) await resumeOnce();
      const resumes: number[] = [];
      for (let k = 0; k < 7; k++) resumes.push(await resumeOnce());
      resumes.sort((a, b) => a - b);
      report({
        name: `resume_${n}_journaled_to_next_activity_ms`,
        unit: "ms",
        value: resumes[3],
        target: "< 100 ms",
      });

      // 2a. Journal cost: one completed activity appended (its own transaction), per activity.
      const run = store.createRun({
        workflowKey: "bench",
        title: "bench",
        file: "(inline)",
        source: sequential(1),
        phases: [],
        args: {},
        project: null,
        callerSessionId: null,
        model: null,
        mode: "normal",
        budget: SETTINGS.budget,
        concurrency: SETTINGS.concurrency,
      });
      const t1 = process.hrtime.bigint();
      for (let i = 0; i < 2000; i++)
        store.appendJournal(run.id, [invoked(i)], { usage: { invocations: i, tokens: i } });
      report({ name: "journal_append_per_activity_ms", unit: "ms", value: ms(t1) / 2000, target: "< 1 ms" });

      // 2b. Replay cost: a pass over n journaled activities, per activity (what each later pass pays).
      const passes: number[] = [];
      for (let k = 0; k < 5; k++) {
        const t = process.hrtime.bigint();
        await runWorkflowPass({
          source: sequential(n),
          filename: "workflow.js",
          args: {},
          journal,
          concurrency: SETTINGS.concurrency,
          limits,
        });
        passes.push(ms(t));
      }
      passes.sort((a, b) => a - b);
      report({
        name: `replay_per_journaled_activity_ms`,
        unit: "ms",
        value: passes[2] / n,
        target: "< 1 ms",
      });

      // 2c. End to end: 100 sequential activities with an instant host (a pass per activity), per activity.
      const instant: ActivityHost = {
        run: async () => ({ value: { status: "completed", message: "ok", data: null } }),
      };
      const runs = new WorkflowRuns({ workspace, project, store, host: instant, settings: SETTINGS });
      const seq = await runs.start({ target: { script: sequential(99) } });
      const t2 = process.hrtime.bigint();
      await runs.drive(seq.id);
      report({ name: "sequential_100_activities_per_activity_ms", unit: "ms", value: ms(t2) / 100 });
      store.close();
      workspace.close();

      // 3. Fan-out: 8 agents at concurrency 4, each one model call of 100 ms; the ideal is 2 waves = 200 ms.
      const bed = slowHarness(join(dir, "fan"), 100, 8);
      const caller = bed.harness.createSession({ profileKey: "leader.default", project: bed.project.name });
      const fstore = WorkflowStore.forWorkspace(bed.workspace);
      const host = new WorkflowHost({
        workspace: bed.workspace,
        project: bed.project,
        store: fstore,
        port: collaborationPort(
          new AgentCollaboration(bed.harness, caller.id, "bench", "normal"),
          bed.sessions,
        ),
        tools: harnessToolPort(bed.harness, bed.workspace, bed.project),
      });
      const fan = new WorkflowRuns({
        workspace: bed.workspace,
        project: bed.project,
        store: fstore,
        host,
        settings: SETTINGS,
      });
      const fr = await fan.start({
        target: {
          script: `export default async function run(wf) {
            return wf.map([1,2,3,4,5,6,7,8], async (i) => {
              const a = await wf.agents.create("adhoc", { initial: { systemPrompt: "x" }, ephemeral: true });
              return (await a.invoke({ message: "item " + i })).message;
            }, { concurrency: 4 });
          }`,
        },
        callerSessionId: caller.id,
      });
      const t3 = process.hrtime.bigint();
      const done = await fan.drive(fr.id);
      const wall = ms(t3);
      if (done.status !== "completed") throw new Error(`fan-out run ${done.status}: ${done.error?.message}`);
      report({
        name: "fanout_8_at_4_with_100ms_model_ms",
        unit: "ms",
        value: wall,
        baseline: 200,
        ratio: 200 / wall,
        target: "ideal 200 ms",
      });
      report({ name: "fanout_max_concurrent_model_calls", unit: "x", value: bed.seen.max, target: "4" });
      fstore.close();
      bed.harness.close();
      bed.workspace.close();
    } finally {
      await closeWorkflowSandbox();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
