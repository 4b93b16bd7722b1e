import type { ErrorInfo } from "../core/errors.js";
import { announce } from "./announce.js";
import type { EventBus, PendingView, RunStatus } from "./events.js";
import type { RunFence } from "./run.js";
import type { Entry, EntryInput, SessionStore } from "./store/index.js";
import type { RunResult } from "./types.js";
import { workingPath } from "./working-path.js";

/** How a run ends, beside its status. */
export interface RunEnding {
  finalMessage?: string;
  data?: unknown;
  pending?: PendingView;
  error?: ErrorInfo;
}

/**
 * What one run writes to its session: entries appended to the store are kept on the run's path
 * (what the next model call sees), and committed entries are announced on the bus, so the record
 * and the events cannot drift. Once the harness has closed the run itself (its fence revoked),
 * nothing more is written or announced.
 */
export class RunRecord {
  /** The part of the session's active path the run works from (workingPath), as the run extends it. */
  readonly path: Entry[];
  steps = 0;
  lastText = "";
  readonly usage = { inputTokens: 0, outputTokens: 0 };

  constructor(
    private readonly store: SessionStore,
    private readonly bus: EventBus,
    readonly sessionId: string,
    readonly runId: string,
    private readonly fence: RunFence,
  ) {
    this.path = workingPath(store, sessionId);
  }

  /** Append entries one by one, keeping them on the path; returns them as stored. */
  append(...inputs: EntryInput[]): Entry[] {
    const out = inputs.map((e) => this.store.append(this.sessionId, e));
    this.path.push(...out);
    return out;
  }

  /** Commit one step's entries as one transaction, keep and announce them. */
  commitStep(inputs: EntryInput[]): Entry[] {
    const committed = this.store.commitStep(this.sessionId, inputs);
    this.path.push(...committed);
    announce(this.bus, this.sessionId, committed);
    return committed;
  }

  /** Keep entries written elsewhere (a compaction summary) on the path. */
  keep(entry: Entry): void {
    this.path.push(entry);
  }

  /** The run's result without writing anything (the harness already closed it). */
  result(status: RunStatus, extra: RunEnding = {}): RunResult {
    const out: RunResult = {
      sessionId: this.sessionId,
      status,
      finalMessage: extra.finalMessage ?? this.lastText,
      steps: this.steps,
      usage: this.usage,
    };
    if (extra.data !== undefined) out.data = extra.data;
    if (extra.pending) out.pending = extra.pending;
    if (extra.error) out.error = extra.error;
    return out;
  }

  /** End the run: its error and end entries, the session's status, the events. */
  end(status: RunStatus, extra: RunEnding = {}): RunResult {
    const out = this.result(status, extra);
    if (this.fence.revoked) return { ...out, status: "aborted" };
    const closing: EntryInput[] = [];
    if (extra.error) closing.push({ kind: "run_error", data: { runId: this.runId, error: extra.error } });
    closing.push({
      kind: "run_end",
      data: {
        runId: this.runId,
        status,
        finalMessage: out.finalMessage,
        ...(extra.data !== undefined ? { data: extra.data } : {}),
      },
    });
    const entries = this.append(...closing);
    this.store.setStatus(this.sessionId, status === "waiting" ? "waiting" : "idle");
    announce(this.bus, this.sessionId, entries);
    return out;
  }
}
