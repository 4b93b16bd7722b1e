import type { Command } from "commander";
import { NbError } from "../../core/errors.js";
import { SessionStore } from "../../harness/store/index.js";
import { jobFacts, jobLine } from "../../jobs/format.js";
import { cancelElsewhere, recoverInterruptedJobs } from "../../jobs/runner.js";
import { JobStatusSchema } from "../../jobs/store.js";
import { Workspace } from "../../workspace/workspace.js";
import { printJson, reportCliError, writeOut } from "../output.js";

// How long `nbook jobs cancel` waits for the process running a job to stop it before ending it here.
const CANCEL_WAIT_MS = 3000;

/**
 * Run `fn` with the workspace's session store, after ending the jobs of processes that are gone as
 * interrupted (their owners are told on their next run), so what is shown is true now.
 */
async function withJobs<T>(
  workspace: string | undefined,
  fn: (store: SessionStore) => Promise<T> | T,
): Promise<T> {
  const store = SessionStore.forWorkspace(Workspace.discover({ workspace }));
  try {
    recoverInterruptedJobs(store.jobs);
    return await fn(store);
  } finally {
    store.close();
  }
}

interface ListOptions {
  workspace?: string;
  project?: string;
  session?: string;
  status?: string;
  limit?: number;
  json?: boolean;
}

/** `nbook jobs list|show|cancel`: background jobs as the user sees them (every session's). */
export function registerJobs(program: Command): void {
  const jobs = program
    .command("jobs")
    .description("List, show and cancel background jobs (bash and agent calls run in the background)");
  jobs
    .command("list")
    .description("List background jobs, newest first")
    .option("--session <id>", "only the jobs of this session")
    .option("--project <name>", "only the jobs of sessions in this project")
    .option(
      "--status <status>",
      "only jobs with this status (queued, running, waiting, completed, failed, cancelled, interrupted)",
    )
    .option("--limit <n>", "at most this many (default 50)", Number)
    .option("--workspace <dir>", "workspace root")
    .option("--json", "print JSON")
    .action(async (o: ListOptions) => {
      try {
        if (o.limit !== undefined && !(Number.isInteger(o.limit) && o.limit > 0 && o.limit <= 500))
          throw new NbError("invalid_input", "--limit must be an integer from 1 to 500");
        const status = o.status === undefined ? undefined : JobStatusSchema.safeParse(o.status);
        if (status && !status.success)
          throw new NbError("invalid_input", `--status must be one of ${JobStatusSchema.options.join(", ")}`);
        const list = await withJobs(o.workspace, (store) => {
          if (o.session) store.session(o.session);
          return store.jobs.list({
            ownerSessionId: o.session,
            project: o.project,
            status: status?.data,
            limit: o.limit ?? 50,
          });
        });
        if (o.json) printJson(list);
        else if (!list.length) writeOut("No background jobs.\n");
        else for (const j of list) writeOut(`${jobLine(j)}  [session ${j.ownerSessionId ?? "-"}]\n`);
      } catch (e) {
        reportCliError(e, o.json);
      }
    });
  jobs
    .command("show")
    .description("Show one job: status, times, error, and its whole result")
    .argument("<jobId>", "job id (job_…)")
    .option("--workspace <dir>", "workspace root")
    .option("--json", "print the job as JSON")
    .action(async (id: string, o: { workspace?: string; json?: boolean }) => {
      try {
        const job = await withJobs(o.workspace, (store) => store.jobs.getFull(id));
        if (o.json) printJson(job);
        else {
          let out = `${jobFacts(job)}\n`;
          if (job.result) {
            out += `\nResult:\n${job.result.text}\n`;
            if (job.result.data !== undefined) out += `\nData: ${JSON.stringify(job.result.data)}\n`;
          }
          writeOut(out);
        }
      } catch (e) {
        reportCliError(e, o.json);
      }
    });
  jobs
    .command("cancel")
    .description(
      "Cancel a job: the process running it stops it (a command is killed with its sandbox); ended here if it does not confirm within 3 s",
    )
    .argument("<jobId>", "job id (job_…)")
    .option("--workspace <dir>", "workspace root")
    .option("--json", "print the job as it ended, as JSON")
    .action(async (id: string, o: { workspace?: string; json?: boolean }) => {
      try {
        const { job, was } = await withJobs(o.workspace, async (store) => {
          const before = store.jobs.get(id);
          if (before.endedAt === null) await cancelElsewhere(store.jobs, before, CANCEL_WAIT_MS);
          return { job: store.jobs.get(id), was: before };
        });
        if (o.json) printJson(job);
        else if (was.endedAt !== null)
          writeOut(`Job ${job.id} had already ended (${job.status}); nothing to cancel.\n`);
        else writeOut(`Job ${job.id} ended as ${job.status}.\n`);
      } catch (e) {
        reportCliError(e, o.json);
      }
    });
}
