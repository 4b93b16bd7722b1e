import type { JobRunner } from "../../jobs/runner.js";

/**
 * What the jobs tools (and `bash {background:true}`) need from the harness: the process's job
 * runner. The calling session comes from ctx.session, and the runner lets it see only its own jobs.
 */
export type JobsService = Pick<JobRunner, "start" | "get" | "list" | "cancel">;
