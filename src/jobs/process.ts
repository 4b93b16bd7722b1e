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

/** A runner id's host, pid and start; null when malformed. */
function parseRunner(runner: string): { host: string; pid: number; start: string } | null {
  const m = /^(.*):(\d+):(\d+|\?)$/.exec(runner);
  return m ? { host: m[1], pid: Number(m[2]), start: m[3] } : null;
}

/** A runner id as a person reads it: "pid 123", or "pid 123 on host h" for another host. */
export function describeRunner(runner: string): string {
  const r = parseRunner(runner);
  if (!r) return "an unknown process";
  return r.host === hostname() ? `pid ${r.pid}` : `pid ${r.pid} on host ${r.host}`;
}

/**
 * Whether the process a runner id names is still alive. A runner on another host cannot be checked
 * and counts as alive (its jobs are never declared interrupted from here); a malformed id is dead.
 */
export function runnerAlive(runner: string): boolean {
  const r = parseRunner(runner);
  if (!r) return false;
  if (r.host !== hostname()) return true;
  const { pid } = r;
  try {
    process.kill(pid, 0);
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    if ((e as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  if (r.start === "?") return true;
  return startTicks(pid) === r.start;
}
