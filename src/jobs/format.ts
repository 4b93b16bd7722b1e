import type { Job } from "./store.js";

/** "12:04:31" from an ISO time (UTC), for one-line listings. */
function clock(iso: string | null): string {
  return iso ? iso.slice(11, 19) : "--:--:--";
}

/** One line per job: id, status, title (which names its kind), start time, then the preview or the error. */
export function jobLine(job: Job): string {
  const tail = job.error
    ? ` — ${job.error.code}: ${firstLine(job.error.message)}`
    : job.preview
      ? ` — ${firstLine(job.preview)}`
      : "";
  return `${job.id} [${job.status}] ${job.title} (started ${clock(job.startedAt ?? job.createdAt)} UTC)${tail}`;
}

function firstLine(text: string): string {
  const line = text.trim().split("\n").pop() ?? "";
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

/** A job's facts, one per line, without its result. */
export function jobFacts(job: Job): string {
  const lines = [
    `Job ${job.id}: ${job.title}`,
    `Status: ${job.status}`,
    `Owner session: ${job.ownerSessionId ?? "(none)"}${job.originCallId ? ` (call ${job.originCallId})` : ""}`,
    `Created: ${job.createdAt}${job.startedAt ? `  started: ${job.startedAt}` : ""}${job.endedAt ? `  ended: ${job.endedAt}` : ""}`,
  ];
  if (job.ownerSessionId !== null && job.endedAt) lines.push(`Flow-back: ${job.delivery}`);
  if (job.preview && !job.endedAt) lines.push(`Progress: ${job.preview}`);
  if (job.error) lines.push(`Error [${job.error.code}]: ${job.error.message}`);
  return lines.join("\n");
}
