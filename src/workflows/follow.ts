import { NbError } from "../core/errors.js";
import type { WorkflowRuns } from "./service.js";
import type { RunRecord } from "./store/index.js";

/** How a run that is followed to its end reports where it stands. */
export interface FollowHooks {
  /** The run waits on the user's answers (text names the questions); "stop" ends the following there. */
  waiting?(text: string): undefined | "stop";
  /** The run runs again after it was answered. */
  running?(): void;
  /**
   * Asked when the signal aborts: true when the process is shutting down, so the run is left as it
   * is (waiting, or running to be resumed) instead of being cancelled.
   */
  suspendOnAbort?(): boolean;
}

const POLL_MS = 500;

/** One line naming the questions a waiting run asks. */
export function waitingText(runs: WorkflowRuns, runId: string): string {
  const asks = runs.store.asks(runId);
  const list = asks.map((a) => `${a.key}: ${String(a.spec.title ?? "")}`).join("; ");
  return `waiting for answers (nbook workflows answer ${runId} --answers '{…}'): ${list}`;
}

/**
 * Follow a run to a terminal status: drive it while this process may, wait while it is waiting on
 * the user (answers may come from another process) or another live process drives it. The signal
 * cancels the run.
 */
export async function followRun(
  runs: WorkflowRuns,
  runId: string,
  signal: AbortSignal,
  hooks: FollowHooks = {},
): Promise<RunRecord> {
  let reportedWaiting = false;
  for (;;) {
    if (signal.aborted) return hooks.suspendOnAbort?.() ? runs.store.run(runId) : runs.cancel(runId);
    const run = runs.store.run(runId);
    if (run.status === "completed" || run.status === "failed" || run.status === "cancelled") return run;
    if (run.status === "running") {
      if (reportedWaiting) {
        reportedWaiting = false;
        hooks.running?.();
      }
      try {
        const out = await runs.drive(runId, signal, hooks.suspendOnAbort);
        if (signal.aborted && out.status === "running") return out;
        continue;
      } catch (e) {
        // Another live process drives it: watch the store until it ends or waits.
        if (!(e instanceof NbError && e.code === "conflict")) throw e;
      }
    } else if (!reportedWaiting) {
      reportedWaiting = true;
      if (hooks.waiting?.(waitingText(runs, runId)) === "stop") return run;
    }
    await new Promise<void>((r) => {
      const t = setTimeout(r, POLL_MS);
      signal.addEventListener(
        "abort",
        () => {
          clearTimeout(t);
          r();
        },
        { once: true },
      );
    });
  }
}

/** What a finished run says to the agent or person who started it. */
export function runSummaryText(run: RunRecord): string {
  const head = `Workflow ${run.workflowKey} (run ${run.id}) ${run.status}.`;
  const usage = `Usage: ${run.usage.invocations} agent invocation(s), ${run.usage.tokens} tokens.`;
  if (run.status === "completed") return `${head}\nResult:\n${JSON.stringify(run.result, null, 2)}\n${usage}`;
  if (run.status === "failed") return `${head}\nError (${run.error?.code}): ${run.error?.message}\n${usage}`;
  return `${head}\n${usage}`;
}
