import { createHash } from "node:crypto";
import { visibleModels } from "../../collab/visible-models.js";
import { NbError } from "../../core/errors.js";
import { SessionStore } from "../../harness/store/index.js";
import { loadModelsConfig } from "../../models/index.js";
import { getWorkflow, type Workflow } from "../../workflows/catalog.js";
import { WorkflowHost } from "../../workflows/host/activities.js";
import { collaborationPort } from "../../workflows/host/agent-port.js";
import { WorkflowRuns } from "../../workflows/service.js";
import { WorkflowStore } from "../../workflows/store/index.js";
import type { CollaborationService } from "../collaboration/service.js";
import { sessionService } from "../control/session.js";
import type { ToolContext } from "../types.js";

/** The models agents may name, from the workspace's (and project's) config. */
export function agentVisibleModels(ctx: ToolContext): string[] {
  return visibleModels(
    loadModelsConfig({ workspaceRoot: ctx.workspace.root, projectRoot: ctx.project?.root ?? null }),
  );
}

/** `not_allowed` (pointing at `pointer`) unless the model is visible to agents. */
export function checkVisibleModel(ctx: ToolContext, model: string | undefined, pointer = "/model"): void {
  if (model === undefined) return;
  const visible = agentVisibleModels(ctx);
  if (!visible.includes(model))
    throw new NbError(
      "not_allowed",
      `Model ${model} is not visible to agents; ${visible.length ? `use one of: ${visible.join(", ")}` : "no model is (leave model out)"}`,
      { fields: [{ pointer, message: "not a model visible to agents" }] },
    );
}

/** The workflow a call names, resolved in the call's project. */
export async function targetWorkflow(ctx: ToolContext, key: string): Promise<Workflow> {
  return getWorkflow(ctx.workspace, ctx.project, key);
}

/** A hash that pins an approval to the script and args it previewed. */
export function previewBasis(source: string, args: unknown): string {
  return createHash("sha256")
    .update(source)
    .update("\0")
    .update(JSON.stringify(args ?? {}))
    .digest("hex");
}

/** Workflow runs for one agent's call: the run's agents are the calling session's children. */
export function runsForCall(ctx: ToolContext, tool: string): { runs: WorkflowRuns; close(): void } {
  const collab = sessionService(ctx, "collab", tool);
  return openRuns(ctx, collab);
}

function openRuns(ctx: ToolContext, collab: CollaborationService): { runs: WorkflowRuns; close(): void } {
  const sessions = SessionStore.forWorkspace(ctx.workspace);
  const store = WorkflowStore.forWorkspace(ctx.workspace);
  const host = new WorkflowHost({
    workspace: ctx.workspace,
    project: ctx.project,
    store,
    port: collaborationPort(collab, sessions),
  });
  return {
    runs: new WorkflowRuns({ workspace: ctx.workspace, project: ctx.project, store, host }),
    close: () => {
      store.close();
      sessions.close();
    },
  };
}
