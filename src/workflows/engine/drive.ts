import { type ErrorInfo, NbError, toErrorInfo } from "../../core/errors.js";
import { askSpecError } from "../answers.js";
import type { WorkflowSettings } from "../config.js";
import { runWorkflowPass } from "../sandbox/index.js";
import type { ActivityRequest, JournalEntry, PassOutcome } from "../sandbox/protocol.js";
import type { RunPatch, RunRecord, RunUsage, WorkflowStore } from "../store/index.js";
import type { ActivityHost } from "./activity-host.js";

/** What driving a run needs. */
export interface DriveDeps {
  store: WorkflowStore;
  host: ActivityHost;
  settings: WorkflowSettings;
  /** This process's owner token (see WorkflowStore.claim). */
  owner: string;
  /** How often a run waiting on its activities looks for a cancel request from another process. */
  cancelPollMs?: number;
  /** Called after each pass with the run as stored (progress lines). */
  onUpdate?: (run: RunRecord) => void;
  /**
   * Asked when the signal aborts: true when the process is shutting down rather than cancelling.
   * The run then stops its activities and stays `running`, to be resumed from its journal later.
   */
  suspendOnAbort?: () => boolean;
}

interface Done {
  req: ActivityRequest;
  startedAt: number;
  endedAt: number;
  ok: boolean;
  value?: unknown;
  error?: ErrorInfo;
  tokens: number;
}

/** How long a stopping run waits for its running activities to end. */
const STOP_GRACE_MS = 2_000;
const SESSION_KINDS = new Set(["session.invoke", "session.transcript", "session.append"]);

/**
 * Drive a run until it completes, fails, is cancelled, or waits on the user only. Each turn of the
 * loop is one pass (a deterministic re-execution of the script over its journal in a sandbox
 * worker), then the activities the pass is waiting on start — at most `concurrency.max` at once,
 * one at a time per agent session — and the loop turns again as soon as any of them completes;
 * completions are journaled in the order they happened, which is the order a later pass delivers
 * them in.
 */
export async function driveRun(deps: DriveDeps, runId: string, signal?: AbortSignal): Promise<RunRecord> {
  const { store, host, settings } = deps;
  let run = store.run(runId);
  const journal: JournalEntry[] = store.journal(runId);
  const inflight = new Map<number, AbortController>();
  const queue: ActivityRequest[] = [];
  const done: Done[] = [];
  const sessionTail = new Map<string, Promise<unknown>>();
  let wake: (() => void) | null = null;
  let usage: RunUsage = run.usage;
  let hadAsks = store.asks(runId).length > 0;
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const onAbort = () => notify();
  signal?.addEventListener("abort", onAbort);

  // Every ending records the usage: invocations started but not yet journaled (a budget or a
  // cancel stopped them) were spent all the same.
  const finish = (patch: RunPatch): RunRecord => {
    run = store.update(runId, { usage, ...patch, owner: null });
    deps.onUpdate?.(run);
    return run;
  };
  /**
   * Stop every running activity and wait for them to settle, at most STOP_GRACE_MS: an activity that
   * ignores its signal is left behind, and whatever it returns later is not journaled.
   */
  const stopAll = async () => {
    for (const c of inflight.values()) c.abort();
    const until = Date.now() + STOP_GRACE_MS;
    while (inflight.size && Date.now() < until)
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(notify, Math.max(1, until - Date.now()));
      });
  };
  const cancelled = () => signal?.aborted || store.run(runId).cancelRequested;

  const start = (req: ActivityRequest) => {
    const controller = new AbortController();
    inflight.set(req.seq, controller);
    const startedAt = Date.now();
    const exec = () => host.run(req.kind, req.params, { run, seq: req.seq, signal: controller.signal });
    const key = SESSION_KINDS.has(req.kind)
      ? String((req.params as { sessionId?: unknown }).sessionId)
      : null;
    // Two calls on one session would race for its history: they run one after the other.
    const p = key ? (sessionTail.get(key) ?? Promise.resolve()).then(exec, exec) : exec();
    if (key)
      sessionTail.set(
        key,
        p.catch(() => undefined),
      );
    p.then(
      (out) =>
        done.push({
          req,
          startedAt,
          endedAt: Date.now(),
          ok: true,
          value: out.value,
          tokens: out.tokens ?? 0,
        }),
      (e: unknown) =>
        done.push({ req, startedAt, endedAt: Date.now(), ok: false, error: toErrorInfo(e), tokens: 0 }),
    ).finally(() => {
      inflight.delete(req.seq);
      // A result that arrives after its run stopped it is not journaled: the run is over.
      const i = controller.signal.aborted ? done.findIndex((d) => d.req.seq === req.seq) : -1;
      if (i >= 0) done.splice(i, 1);
      notify();
    });
  };

  try {
    for (;;) {
      if (cancelled()) {
        await stopAll();
        if (signal?.aborted && deps.suspendOnAbort?.()) return finish({});
        return finish({ status: "cancelled" });
      }
      let pass: PassOutcome;
      try {
        pass = await runWorkflowPass(
          {
            source: run.source,
            filename: "workflow.js",
            args: run.args,
            journal,
            concurrency: run.concurrency,
            limits: { timeoutMs: settings.passTimeoutMs, memoryBytes: settings.passMemoryBytes },
          },
          signal,
        );
      } catch (e) {
        await stopAll();
        if (cancelled()) {
          if (signal?.aborted && deps.suspendOnAbort?.()) return finish({});
          return finish({ status: "cancelled" });
        }
        return finish({ status: "failed", error: toErrorInfo(e) });
      }
      journal.push(...pass.syncEntries);
      store.appendJournal(runId, pass.syncEntries, { logs: pass.logs, progress: pass.progress });
      run = store.run(runId);
      deps.onUpdate?.(run);
      if (pass.state === "done") {
        await stopAll();
        await host.completed?.(run);
        store.setAsks(runId, []);
        return finish({ status: "completed", result: pass.value ?? null });
      }
      if (pass.state === "failed") {
        await stopAll();
        return finish({
          status: "failed",
          error: pass.error ?? { code: "internal", message: "the run failed" },
        });
      }
      const asks: ActivityRequest[] = [];
      for (const r of pass.requests.filter((q) => q.kind === "ask")) {
        const bad = askSpecError(r.params);
        if (!bad) asks.push(r);
        else if (!done.some((d) => d.req.seq === r.seq)) {
          const now = Date.now();
          done.push({ req: r, startedAt: now, endedAt: now, ok: false, error: bad.toInfo(), tokens: 0 });
        }
      }
      if (asks.length || hadAsks) store.setAsks(runId, asks);
      hadAsks = asks.length > 0;
      const queued = new Set(queue.map((q) => q.seq));
      const finished = new Set(done.map((d) => d.req.seq));
      for (const r of pass.requests)
        if (r.kind !== "ask" && !inflight.has(r.seq) && !queued.has(r.seq) && !finished.has(r.seq))
          queue.push(r);
      while (queue.length && inflight.size < run.concurrency.max) {
        const req = queue.shift()!;
        if (req.kind === "session.invoke") {
          if (usage.invocations >= run.budget.maxInvocations) {
            await stopAll();
            return finish({
              status: "failed",
              error: budgetError(`${usage.invocations} agent invocations`, run),
            });
          }
          usage = { ...usage, invocations: usage.invocations + 1 };
        }
        start(req);
      }
      if (!inflight.size && !done.length) {
        if (asks.length) return finish({ status: "waiting" });
        return finish({
          status: "failed",
          error: {
            code: "conflict",
            message:
              "The workflow is waiting on something that can never finish (a promise no wf activity settles)",
          },
        });
      }
      // Wait for a completion, a cancel from this process, or (polled) one from another process.
      while (!done.length && !cancelled()) {
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(notify, deps.cancelPollMs ?? 250).unref?.();
        });
      }
      if (cancelled()) continue;
      const batch = done.splice(0, done.length);
      const tokens = batch.reduce((n, d) => n + d.tokens, 0);
      usage = { ...usage, tokens: usage.tokens + tokens };
      const entries = batch.map((d) => ({
        seq: d.req.seq,
        kind: d.req.kind,
        fp: d.req.fp,
        ok: d.ok,
        ...(d.ok ? { value: d.value ?? null } : { error: d.error }),
        startedAt: d.startedAt,
        endedAt: d.endedAt,
      }));
      store.appendJournal(runId, entries, { usage });
      for (const { startedAt: _s, endedAt: _e, ...e } of entries) journal.push(e);
      if (usage.tokens > run.budget.maxTokens) {
        await stopAll();
        return finish({ status: "failed", error: budgetError(`${usage.tokens} tokens`, run) });
      }
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
}

function budgetError(spent: string, run: RunRecord): ErrorInfo {
  return new NbError(
    "limit_exceeded",
    `The run exceeded its budget (${spent}; at most ${run.budget.maxInvocations} invocations and ${run.budget.maxTokens} tokens); the work so far is kept in its journal`,
  ).toInfo();
}
