import { z } from "zod";
import { runView } from "../../workflows/service.js";
import { RunStatusSchema } from "../../workflows/store/schema.js";
import type { ApiRoutes } from "../api.js";
import type { ServeHub } from "../hub.js";
import { projectName } from "./common.js";

const RunParams = z
  .object({ runId: z.string().regex(/^run_[0-9a-f]{12}$/, "not a workflow run id") })
  .strict();

/** Workflow runs, read-only: the latest runs, and one run with its asks, participants and timeline. */
export function registerWorkflowRoutes(routes: ApiRoutes, hub: ServeHub): void {
  routes.add(
    {
      method: "get",
      path: "/api/workflow-runs",
      tag: "workflows",
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
      summary: "One run: status, phase progress, usage, pending questions, participants, activity timeline",
      params: RunParams,
    },
    (c, { params }) => c.json(runView(hub.workflowStore(), params.runId)),
  );
}
