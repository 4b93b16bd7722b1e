import type { Harness } from "../harness/loop.js";
import { jobLine } from "../jobs/format.js";
import type { Job } from "../jobs/store.js";

/** The `/jobs` line of the chat help. */
export const JOBS_HELP = "  /jobs                        show this session's background jobs\n";

/** One line for a job that ended: how, and whether its result went back to the session. */
export function jobEndedLine(job: Job): string {
  const how = job.error ? ` — ${job.error.message.split("\n")[0]}` : "";
  return `  ⏺ background job ${job.id} ${job.status}: ${job.title}${how}`;
}

/** `/jobs`: the session's jobs, newest first (running ones with their latest output line). */
export function jobsText(harness: Harness, sessionId: string): string {
  const jobs = harness.jobs.list({ sessionId }, { limit: 20 });
  if (!jobs.length) return "No background jobs in this session.\n";
  return `${jobs.map((j) => jobLine(j)).join("\n")}\n(nbook jobs show <id> prints a whole result)\n`;
}

/** What leaving the chat does to jobs still running, when there are any. */
export function exitNotice(harness: Harness): string | null {
  const n = harness.jobs.activeCount();
  if (!n) return null;
  return `(${n} background job${n > 1 ? "s" : ""} still running end as interrupted now; the session is told on its next run)\n`;
}
