import { NbError } from "../../core/errors.js";
import { sharedPool } from "../../core/workers/pool.js";
import type { PassJob, PassOutcome, SandboxJob, SandboxLimits } from "./protocol.js";

export type * from "./protocol.js";

/** Limits of a pass unless config says otherwise. */
export const DEFAULT_PASS_LIMITS: SandboxLimits = { timeoutMs: 5_000, memoryBytes: 64 * 1024 * 1024 };
/** Time past a pass's deadline for its worker to report the interrupt before it is terminated. */
const KILL_GRACE_MS = 1_000;

const pool = sharedPool<SandboxJob, unknown>({
  base: import.meta.url,
  name: "worker",
  keepIdle: 1,
  maxWorkers: 2,
  bootTimeoutMs: 30_000,
});

function run(job: SandboxJob, signal?: AbortSignal): Promise<unknown> {
  const { timeoutMs } = job.limits;
  return pool.run(job, {
    deadlineMs: timeoutMs + KILL_GRACE_MS,
    signal,
    timedOut: () =>
      new NbError("timeout", `The workflow script ran longer than ${timeoutMs / 1000} s in one pass`),
    aborted: () => new NbError("aborted", "The workflow pass was aborted"),
  });
}

/** Run one deterministic pass of a workflow in a sandbox worker (off the main thread). */
export function runWorkflowPass(job: PassJob, signal?: AbortSignal): Promise<PassOutcome> {
  return run({ kind: "pass", ...job }, signal) as Promise<PassOutcome>;
}

/** Evaluate a workflow module in a sandbox worker and return its exported metadata (JSON). */
export function describeWorkflowModule(
  source: string,
  filename: string,
  limits = DEFAULT_PASS_LIMITS,
): Promise<unknown> {
  return run({ kind: "describe", source, filename, limits });
}

/** Terminate the sandbox workers (tests, shutdown). */
export function closeWorkflowSandbox(): Promise<void> {
  return pool.close();
}
