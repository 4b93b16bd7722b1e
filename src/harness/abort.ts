import { announce } from "./announce.js";
import type { HarnessDeps, RunFence } from "./run.js";
import type { RunResult } from "./types.js";

/**
 * `work`, unless the signal aborts and it has not finished within `graceMs`: then `force()` ends it
 * (or answers null when `work` finished meanwhile). A provider or tool that ignores the signal
 * cannot hold a caller (a parent agent, Ctrl-C) for longer than that.
 */
export async function withinAbortGrace(
  work: Promise<RunResult>,
  signal: AbortSignal,
  graceMs: number,
  force: (settled: () => boolean) => Promise<RunResult | null>,
): Promise<RunResult> {
  let timer: NodeJS.Timeout | undefined;
  let arm: (() => void) | undefined;
  let settled = false;
  const forced = new Promise<RunResult>((resolve) => {
    arm = () => {
      timer = setTimeout(async () => {
        if (settled) return;
        const forcedResult = await force(() => settled);
        if (forcedResult) resolve(forcedResult);
      }, graceMs);
    };
    if (signal.aborted) arm();
    else signal.addEventListener("abort", arm, { once: true });
  });
  try {
    const tracked = work.finally(() => {
      settled = true;
    });
    // Once forced, a late failure of the abandoned run has no one to report to.
    tracked.catch(() => {});
    return await Promise.race([tracked, forced]);
  } finally {
    clearTimeout(timer);
    if (arm) signal.removeEventListener("abort", arm);
  }
}

/** End a run that did not stop in time: close it as aborted and fence off anything it writes later. */
export function forceEnd(
  deps: Pick<HarnessDeps, "store" | "bus">,
  sessionId: string,
  fence: RunFence,
): RunResult {
  fence.revoked = true;
  const { store, bus } = deps;
  if (fence.runId) {
    const closing = store.append(sessionId, {
      kind: "run_end",
      data: { runId: fence.runId, status: "aborted", finalMessage: "" },
    });
    announce(bus, sessionId, [closing]);
  }
  store.setStatus(sessionId, "idle");
  return { sessionId, status: "aborted", finalMessage: "", steps: 0 };
}
