import { randomUUID } from "node:crypto";

/** This process's identity as a run owner: its pid and a token unique to this process's life. */
export const OWNER = `${process.pid}:${randomUUID().slice(0, 8)}`;

/**
 * The runs this process is driving, whichever WorkflowRuns drives them: a second one in the same
 * process (the web server's, a tool call's) must see them as driven, not as left by a dead owner.
 */
export const DRIVEN = new Set<string>();

/** True when the process owning a run (`pid:token`) may still be running it. */
export function ownerAlive(owner: string, runId: string): boolean {
  if (owner === OWNER) return DRIVEN.has(runId);
  const pid = Number(owner.split(":")[0]);
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
