import { z } from "zod";
import { jobFacts, jobLine } from "../../jobs/format.js";
import { JobStatusSchema } from "../../jobs/store.js";
import { sessionService } from "../control/session.js";
import { defineTool } from "../define.js";
import type { AnyTool, ToolContext } from "../types.js";
import type { JobsService } from "./service.js";

// A result read through get_job comes in pages of this many characters (well under the output cap).
const PAGE_CHARS = 40_000;

const JobId = z
  .string()
  .regex(/^job_[0-9a-f]{8}$/, "a job id looks like job_1a2b3c4d")
  .describe("the job's id (job_…), as the call that started it returned");

function service(ctx: ToolContext, tool: string): { jobs: JobsService; viewer: { sessionId: string } } {
  const jobs = sessionService(ctx, "jobs", tool);
  return { jobs, viewer: { sessionId: ctx.session!.id } };
}

export const listJobs = defineTool({
  key: "list_jobs",
  group: "jobs",
  scope: "session",
  description:
    "List this session's background jobs, newest first, with status and progress. Results come back to you as messages by themselves when jobs end: do not poll.",
  input: z
    .object({
      status: JobStatusSchema.optional().describe("only jobs with this status"),
      limit: z.number().int().min(1).max(100).optional().describe("at most this many (default 20)"),
    })
    .strict(),
  effect: "read",
  execute: (input, ctx) => {
    const { jobs, viewer } = service(ctx, "list_jobs");
    const list = jobs.list(viewer, { status: input.status, limit: input.limit ?? 20 });
    const text = list.length ? list.map((j) => `- ${jobLine(j)}`).join("\n") : "No background jobs.";
    return { text, details: { jobs: list } };
  },
});

export const getJob = defineTool({
  key: "get_job",
  group: "jobs",
  scope: "session",
  description:
    "One of this session's background jobs: status, timings, error, and its whole result (long results in pages: pass offset to read on).",
  input: z
    .object({
      jobId: JobId,
      offset: z.number().int().min(0).optional().describe("character of the result to start at (default 0)"),
    })
    .strict(),
  effect: "read",
  execute: (input, ctx) => {
    const { jobs, viewer } = service(ctx, "get_job");
    const job = jobs.get(input.jobId, viewer);
    let text = jobFacts(job);
    if (job.result) {
      const from = input.offset ?? 0;
      const page = job.result.text.slice(from, from + PAGE_CHARS);
      const end = from + page.length;
      const range =
        from > 0 || end < job.result.text.length
          ? ` (characters ${from}–${end} of ${job.result.text.length})`
          : "";
      text += `\n\nResult${range}:\n${page}`;
      if (end < job.result.text.length) text += `\n[More: get_job {"jobId":"${job.id}","offset":${end}}]`;
      if (job.result.data !== undefined) text += `\n\nData: ${JSON.stringify(job.result.data)}`;
    }
    // The result is in the text once; details carry the job without it (a session stores both).
    return { text, details: { job: { ...job, result: null } } };
  },
});

export const cancelJob = defineTool({
  key: "cancel_job",
  group: "jobs",
  scope: "session",
  description:
    "Cancel one of this session's background jobs: it is stopped (a command is killed with its whole sandbox) and ends as cancelled; you get its final state.",
  input: z.object({ jobId: JobId }).strict(),
  // Stopping work changes nothing in the workspace.
  effect: "read",
  execute: async (input, ctx) => {
    const { jobs, viewer } = service(ctx, "cancel_job");
    const before = jobs.get(input.jobId, viewer);
    const job = await jobs.cancel(input.jobId, viewer);
    const text =
      before.endedAt !== null
        ? `Job ${job.id} had already ended (${job.status}); nothing to cancel.`
        : `Job ${job.id} ended as ${job.status}.`;
    return { text, details: { job } };
  },
});

/** The background-job tools (seed: "Background jobs"); session-bound. */
export const jobTools: AnyTool[] = [listJobs, getJob, cancelJob];
