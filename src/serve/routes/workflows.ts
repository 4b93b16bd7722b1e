import { z } from "zod";
import { harnessToolPort } from "../../runtime/workflow-tools.js";
import { runsFor } from "../../workflows/runs-for.js";
import { runView, type WorkflowRuns } from "../../workflows/service.js";
import type { RunRecord } from "../../workflows/store/index.js";
import { RunStatusSchema } from "../../workflows/store/schema.js";
import type { ApiRoutes } from "../api.js";
import type { ServeHub } from "../hub.js";
import { OneWorkflowRunSchema, WorkflowRunListSchema, WorkflowRunViewSchema } from "../responses.js";
import { projectName } from "./common.js";

const RunParams = z
  .object({ runId: z.string().regex(/^run_[0-9a-f]{12}$/, "not a workflow run id") })
  .strict();

/** The runs of a run's project, its agents belonging to the run's caller, on the server's harness. */
function runsOf(hub: ServeHub, run: RunRecord): WorkflowRuns {
  const harness = hub.harness(run.project);
  const project = run.project === null ? null : hub.workspace.project(run.project);
  return runsFor({
    harness,
    workspace: hub.workspace,
    project,
    store: hub.workflowStore(),
    tools: harnessToolPort(harness, hub.workspace, project),
    run,
  });
}

/**
 * Workflow runs: the latest runs; one run with its asks, participants and timeline; answering a
 * waiting run's questions (the server then drives it on); cancelling a run.
 */
export function registerWorkflowRoutes(routes: ApiRoutes, hub: ServeHub): void {
  routes.add(
    {
      method: "get",
      path: "/api/workflow-runs",
      tag: "workflows",
      response: WorkflowRunListSchema,
      summary: "The latest workflow runs, most recently updated first (without their scripts)",
      query: z
        .object({
          project: projectName.optional(),
          status: z.array(RunStatusSchema).max(5).optional(),
          limit: z.number().int().min(1).max(200).optional(),
        })
        .strict(),
    },
    (c, { query }) => {
      const limit = query.limit ?? 50;
      // A project's runs are picked from the latest 200 of the workspace.
      const runs = hub
        .workflowStore()
        .listRuns({ status: query.status, limit: query.project === undefined ? limit : 200 })
        .filter((r) => query.project === undefined || r.project === query.project)
        .slice(0, limit)
        .map(({ source: _source, ...run }) => run);
      return c.json({ runs });
    },
  );

  routes.add(
    {
      method: "get",
      path: "/api/workflow-runs/:runId",
      tag: "workflows",
      response: WorkflowRunViewSchema,
      summary: "One run: status, phase progress, usage, pending questions, participants, activity timeline",
      params: RunParams,
    },
    (c, { params }) => c.json(runView(hub.workflowStore(), params.runId)),
  );

  routes.add(
    {
      method: "post",
      path: "/api/workflow-runs/:runId/answer",
      tag: "workflows",
      response: OneWorkflowRunSchema,
      summary:
        "Answer every pending question of a waiting run at once (keys exact, types by kind; nothing written on error); the server then drives the run on",
      params: RunParams,
      body: z.object({ answers: z.record(z.string(), z.unknown()) }).strict(),
      status: 202,
    },
    (c, { params, body }) => {
      const runs = runsOf(hub, hub.workflowStore().run(params.runId));
      const answered = runs.answer(params.runId, body.answers);
      hub.track(runs.drive(params.runId));
      const { source: _source, ...run } = answered;
      return c.json({ run }, 202);
    },
  );

  routes.add(
    {
      method: "post",
      path: "/api/workflow-runs/:runId/cancel",
      tag: "workflows",
      response: OneWorkflowRunSchema,
      summary:
        "Cancel a run: a waiting one at once; one running in this or another process stops at its next step",
      params: RunParams,
    },
    async (c, { params }) => {
      const { source: _source, ...run } = await runsOf(hub, hub.workflowStore().run(params.runId)).cancel(
        params.runId,
      );
      return c.json({ run });
    },
  );
}
