import type { Job } from "../harness/store/jobs.js";

/** Results up to this many characters go to the owner whole; longer ones are summarised. */
export const FLOW_BACK_WHOLE_MAX = 4000;
const HEAD_CHARS = 1500;
const TAIL_CHARS = 2000;

/** Wrap a message for the model as a system reminder (not the user speaking). */
export function systemReminder(text: string): string {
  return `<system-reminder>\n${text.trim()}\n</system-reminder>`;
}

/**
 * A long text as its head and tail with a note of what was left out and where the whole is: the
 * head says what it is, the tail how it ended (a command's last lines, a report's conclusion).
 */
function summarise(text: string, jobId: string): string {
  if (text.length <= FLOW_BACK_WHOLE_MAX) return text;
  const omitted = text.length - HEAD_CHARS - TAIL_CHARS;
  return `${text.slice(0, HEAD_CHARS)}\n[… ${omitted} characters left out of ${text.length} …]\n${text.slice(-TAIL_CHARS)}\n[The whole result: get_job {"jobId":"${jobId}"}]`;
}

/** The follow-up that tells a job's owner how it ended: one system reminder, large results summarised. */
export function flowBackText(job: Job): string {
  const name = `Background job ${job.id} (${job.title})`;
  switch (job.status) {
    case "completed":
      return systemReminder(
        `${name} completed.\n\n${summarise(job.result?.text ?? "", job.id)}\n\nTell the user what it found, or go on with the work.`,
      );
    case "failed":
      return systemReminder(
        `${name} failed [${job.error?.code ?? "internal"}]:\n${summarise(job.error?.message ?? "", job.id)}`,
      );
    case "cancelled":
      return systemReminder(`${name} was cancelled${job.error ? `: ${job.error.message}` : "."}`);
    default:
      return systemReminder(
        `${name} was interrupted: ${job.error?.message ?? "it stopped before it finished"} Start it again if it is still needed.`,
      );
  }
}
