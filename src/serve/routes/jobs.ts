import { z } from "zod";
import { recoverInterruptedJobs } from "../../jobs/runner.js";
import { JobStatusSchema } from "../../jobs/store.js";
import type { ApiRoutes } from "../api.js";
import type { ServeHub } from "../hub.js";
import { JobListSchema, OneJobSchema } from "../responses.js";
import { projectName, sessionId } from "./common.js";

const JobParams = z.object({ jobId: z.string().regex(/^job_[A-Za-z0-9]{1,64}$/, "not a job id") }).strict();

/** Background jobs (bash and agent calls run in the background), as the user sees them: every session's. */
export function registerJobRoutes(routes: ApiRoutes, hub: ServeHub): void {
  const jobs = hub.store.jobs;

  routes.add(
    {
      method: "get",
      path: "/api/jobs",
      tag: "jobs",
      response: JobListSchema,
      summary: "Background jobs, newest first (without their results)",
      query: z
        .object({
          project: projectName.optional(),
          session: sessionId.optional(),
          status: JobStatusSchema.optional(),
          limit: z.number().int().min(1).max(500).optional(),
        })
        .strict(),
    },
    (c, { query }) => {
      // Jobs of processes that are gone are ended as interrupted first, so what is shown is true now.
      recoverInterruptedJobs(jobs);
      if (query.session) hub.store.session(query.session);
      const list = jobs.list({
        ownerSessionId: query.session,
        project: query.project,
        status: query.status,
        limit: query.limit ?? 50,
      });
      return c.json({ jobs: list });
    },
  );

  routes.add(
    {
      method: "get",
      path: "/api/jobs/:jobId",
      tag: "jobs",
      response: OneJobSchema,
      summary: "One job: status, times, error, and its whole result",
      params: JobParams,
    },
    (c, { params }) => {
      recoverInterruptedJobs(jobs);
      return c.json({ job: jobs.getFull(params.jobId) });
    },
  );

  routes.add(
    {
      method: "post",
      path: "/api/jobs/:jobId/cancel",
      tag: "jobs",
      response: OneJobSchema,
      summary:
        "Cancel a job: stopped here if this process runs it (a command with its sandbox), else its process is asked and it is ended if it does not confirm",
      params: JobParams,
    },
    async (c, { params }) => {
      const job = jobs.get(params.jobId);
      const owner = job.ownerSessionId === null ? null : hub.store.session(job.ownerSessionId).project;
      // The owner's harness holds the job when this process runs it; otherwise it asks the other process.
      const ended = await hub.harness(owner).jobs.cancel(params.jobId, "user");
      return c.json({ job: ended });
    },
  );
}
