import { readFileSync } from "node:fs";
import { hostname } from "node:os";

/**
 * This process as a job runner: `host:pid:start`, where `start` is the process's start time in
 * clock ticks since boot (Linux), so a pid reused by a later process is not mistaken for it.
 */
export function thisRunner(): string {
  return `${hostname()}:${process.pid}:${startTicks(process.pid) ?? "?"}`;
}

/** A process's start time (field 22 of /proc/<pid>/stat); null where there is no /proc or no such process. */
function startTicks(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

/**
 * Whether the process a runner id names is still alive. A runner on another host cannot be checked
 * and counts as alive (its jobs are never declared interrupted from here); a malformed id is dead.
 */
export function runnerAlive(runner: string): boolean {
  const m = /^(.*):(\d+):(\d+|\?)$/.exec(runner);
  if (!m) return false;
  if (m[1] !== hostname()) return true;
  const pid = Number(m[2]);
  try {
    process.kill(pid, 0);
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    if ((e as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  if (m[3] === "?") return true;
  return startTicks(pid) === m[3];
}
