import { createHash } from "node:crypto";
import { visibleModels } from "../../collab/visible-models.js";
import { NbError } from "../../core/errors.js";
import { loadModelsConfig } from "../../models/index.js";
import { getWorkflow, type Workflow } from "../../workflows/catalog.js";
import type { WorkflowRuns } from "../../workflows/service.js";
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
export async function runsForCall(
  ctx: ToolContext,
  tool: string,
): Promise<{ runs: WorkflowRuns; close(): void }> {
  const collab = sessionService(ctx, "collab", tool);
  if (!ctx.ports?.workflowRuns)
    throw new NbError("unsupported", `${tool} needs the workflow engine, which this door does not offer`);
  return ctx.ports.workflowRuns(ctx, collab);
}
