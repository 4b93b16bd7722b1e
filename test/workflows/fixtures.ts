import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { agentCollaboration } from "../../src/collab/plugin.js";
import { AgentCollaboration } from "../../src/collab/service.js";
import type { Mode } from "../../src/core/modes.js";
import { Harness } from "../../src/harness/loop.js";
import { SessionStore } from "../../src/harness/store/index.js";
import { type ScriptedLanguageModel, scriptedModel } from "../../src/models/index.js";
import type { ScriptFile } from "../../src/models/scripted/format.js";
import { ProfileCatalog } from "../../src/profiles/catalog.js";
import { toolPorts } from "../../src/runtime/ports.js";
import { harnessToolPort } from "../../src/runtime/workflow-tools.js";
import { createSampleProject } from "../../src/sample/seed.js";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { getWorkflow } from "../../src/workflows/catalog.js";
import { DEFAULT_WORKFLOW_SETTINGS, type WorkflowSettings } from "../../src/workflows/config.js";
import { WorkflowHost } from "../../src/workflows/host/activities.js";
import { collaborationPort } from "../../src/workflows/host/agent-port.js";
import { WorkflowRuns } from "../../src/workflows/service.js";
import { type RunRecord, WorkflowStore } from "../../src/workflows/store/index.js";
import type { Project } from "../../src/workspace/project.js";
import { Workspace } from "../../src/workspace/workspace.js";

/** A minimal valid workflow module with the given title (and optional extra source). */
export function workflowSource(title: string, body = "return { ok: true };"): string {
  return [
    `export const title = ${JSON.stringify(title)};`,
    `export const description = "A test workflow.";`,
    `export const whenToUse = "In tests.";`,
    `export const phases = [{ key: "main", title: "Main" }];`,
    `export const args = { type: "object", properties: { n: { type: "integer", minimum: 1, default: 2 }, name: { type: "string" } }, required: ["name"], additionalProperties: false };`,
    `export default async function run(wf, args) { ${body} }`,
  ].join("\n");
}

/** A workspace with the sample project, a harness on a keyed scripted model, and workflow runs over it. */
export interface WorkflowBed {
  dir: string;
  workspace: Workspace;
  project: Project;
  harness: Harness;
  model: ScriptedLanguageModel;
  store: WorkflowStore;
  /** Model calls in flight now, and at most (with `latencyMs`, each call lasts at least that long). */
  calls: { running: number; max: number };
  /** The leader session that starts runs (their participants are its children). */
  callerId: string;
  runs: WorkflowRuns;
  /** Run a built-in or test workflow by key to its end (or its first wait). */
  run(key: string, args: unknown): Promise<RunRecord>;
  close(): Promise<void>;
}

/** Build a WorkflowBed whose agents answer from `script` (turns keyed by session id / profile). */
export async function workflowBed(
  script: ScriptFile,
  opts: { settings?: Partial<WorkflowSettings>; mode?: Mode; latencyMs?: number } = {},
): Promise<WorkflowBed> {
  const dir = mkdtempSync(join(tmpdir(), "nbook-wf-"));
  const workspace = Workspace.init(dir);
  // The sample with its world and plot seeded (continuity-check reads both).
  const project = await createSampleProject(workspace, "novel");
  const sessions = SessionStore.forWorkspace(workspace);
  const registry = createToolRegistry();
  const catalog = new ProfileCatalog(registry, workspace, project);
  const model = scriptedModel(script);
  const calls = { running: 0, max: 0 };
  const harness = new Harness({
    collaboration: agentCollaboration(),
    ports: toolPorts(),
    workspace,
    store: sessions,
    registry,
    catalog,
    resolveModel: (ref, profileKey, sessionId) => ({
      ref: ref ?? "scripted/test",
      model: slowed(model.forCaller({ sessionId, profileKey }), opts.latencyMs ?? 0, calls),
      contextWindow: 128_000,
    }),
  });
  const caller = harness.createSession({ profileKey: "leader.default", project: project.name });
  const store = WorkflowStore.forWorkspace(workspace);
  const collab = new AgentCollaboration(harness, caller.id, "call_wf", opts.mode ?? "normal");
  const host = new WorkflowHost({
    workspace,
    project,
    store,
    port: collaborationPort(collab, sessions),
    tools: harnessToolPort(harness, workspace, project),
  });
  const runs = new WorkflowRuns({
    workspace,
    project,
    store,
    host,
    settings: { ...DEFAULT_WORKFLOW_SETTINGS, ...opts.settings },
  });
  return {
    dir,
    workspace,
    project,
    harness,
    model,
    store,
    callerId: caller.id,
    runs,
    calls,
    async run(key, args) {
      const w = await getWorkflow(workspace, project, key);
      const run = await runs.start({
        target: { workflow: w },
        args,
        callerSessionId: caller.id,
        mode: opts.mode ?? "normal",
      });
      return runs.drive(run.id);
    },
    async close() {
      store.close();
      harness.close();
      workspace.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The model with each call held `latencyMs` before it answers, counting the calls in flight. */
function slowed(
  inner: LanguageModelV3,
  latencyMs: number,
  calls: { running: number; max: number },
): LanguageModelV3 {
  if (!latencyMs) return inner;
  return Object.create(inner, {
    doStream: {
      value: async (o: Parameters<LanguageModelV3["doStream"]>[0]) => {
        calls.running++;
        calls.max = Math.max(calls.max, calls.running);
        try {
          await new Promise((r) => setTimeout(r, latencyMs));
          return await inner.doStream(o);
        } finally {
          calls.running--;
        }
      },
    },
  });
}

/** A scripted turn that reports `data` as the JSON result text (how adhoc agents report structure). */
export function reportTurn(data: unknown) {
  return { toolCalls: [{ name: "report_result", input: { result: JSON.stringify(data) } }] };
}
