import { randomInt } from "node:crypto";
import { NbError } from "../../core/errors.js";
import { sharedPool } from "../../core/workers/pool.js";
import type { Project } from "../../workspace/project.js";
import type { ScriptClock } from "../sandbox/index.js";
import type { CanonicalWrite } from "./canonical.js";
import type { WorldAccess, WorldJob, WorldJobResult } from "./job.js";

/** Wall-clock budget of a script, by access (a writing script may do more work). */
export const WORLD_SCRIPT_TIMEOUT_MS: Readonly<Record<WorldAccess, number>> = {
  readonly: 5_000,
  readwrite: 15_000,
};

/**
 * Time past a script's deadline for its worker to report the interrupt itself; a script still
 * running then is stuck in a builtin that never checks the interrupt, and its worker is killed.
 */
const KILL_GRACE_MS = 250;

/** What one script run produced, and the clock it ran with. */
export interface WorldScriptOutcome extends WorldJobResult {
  clock: ScriptClock;
}

export interface WorldScriptOptions {
  access: WorldAccess;
  /** Roll everything back at the end (always the case for read-only access). */
  dryRun?: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** What `Date.now()` and `Math.random` give the script (default: now, and a random seed). */
  clock?: ScriptClock;
  /** Keep the run only if it makes exactly these writes; otherwise fail with `conflict`, changing nothing. */
  expect?: CanonicalWrite[];
  /** Log the rows a kept run writes under this history change, in its transaction. */
  changeId?: string;
}

const sandbox = sharedPool<WorldJob, WorldJobResult>({
  base: import.meta.url,
  name: "worker",
  keepIdle: 1,
  maxWorkers: 4,
  bootTimeoutMs: 30_000,
});

/** Start a sandbox worker ahead of the first script (a server or session that will run some). */
export function warmWorldSandbox(): Promise<void> {
  return sandbox.warm();
}

/** Writing scripts of one project run one after another: two open write transactions would collide. */
const writers = new Map<string, Promise<unknown>>();

function serialised<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const next = (writers.get(key) ?? Promise.resolve()).then(fn, fn);
  const tail = next.catch(() => undefined);
  writers.set(key, tail);
  void tail.then(() => {
    if (writers.get(key) === tail) writers.delete(key);
  });
  return next;
}

/** A fresh clock: the current time and a random seed. */
export function newClock(): ScriptClock {
  return { now: Date.now(), seed: randomInt(2 ** 31) };
}

/**
 * Run a script against a project's World Engine in a sandbox worker (see runWorldJob). The main
 * thread only waits: a script that outlives its time limit, or whose call is aborted, has its
 * worker terminated, which rolls back everything it wrote.
 */
export async function runWorldScript(
  project: Project,
  code: string,
  opts: WorldScriptOptions,
): Promise<WorldScriptOutcome> {
  const timeoutMs = opts.timeoutMs ?? WORLD_SCRIPT_TIMEOUT_MS[opts.access];
  const clock = opts.clock ?? newClock();
  const job: WorldJob = {
    workspaceRoot: project.workspace.root,
    project: project.name,
    code,
    access: opts.access,
    dryRun: opts.dryRun === true,
    timeoutMs,
    clock,
    ...(opts.expect ? { expect: opts.expect } : {}),
    ...(opts.changeId ? { changeId: opts.changeId } : {}),
  };
  const run = () =>
    sandbox.run(job, {
      deadlineMs: timeoutMs + KILL_GRACE_MS,
      signal: opts.signal,
      timedOut: () => new NbError("timeout", `Script timed out after ${timeoutMs / 1000} s`),
      aborted: () => new NbError("aborted", "Script aborted"),
    });
  const result = await (opts.access === "readwrite" ? serialised(project.realRoot, run) : run());
  return { ...result, clock };
}
