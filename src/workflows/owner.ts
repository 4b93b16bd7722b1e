import { randomUUID } from "node:crypto";

/** This process's identity as a run owner: its pid and a token unique to this process's life. */
export const OWNER = `${process.pid}:${randomUUID().slice(0, 8)}`;

/** True when the process owning a run (`pid:token`) may still be running it. */
export function ownerAlive(owner: string, localRuns: ReadonlySet<string>, runId: string): boolean {
  if (owner === OWNER) return localRuns.has(runId);
  const pid = Number(owner.split(":")[0]);
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
