import type { ErrorInfo } from "../core/errors.js";
import type { Mode } from "../core/modes.js";
import type { Currency, Usage } from "../models/prices.js";
import type { UsageTotals } from "./store/calls.js";
import type { PendingView, RunStatus, Task } from "./store/schema.js";

export type { PendingView, RunStatus };

/** One entry of a session's task list. */
export type TaskItem = Task;

/**
 * Everything the loop reports while it runs, on one typed bus (CLI now, HTTP/SSE later).
 * `turn_*` wraps one model call and its tool calls; `run_*` wraps one invocation.
 */
export type HarnessEvent =
  | {
      type: "run_start";
      sessionId: string;
      runId: string;
      invocation: "prompt" | "continue" | "steer" | "followup";
    }
  | { type: "turn_start"; sessionId: string; runId: string; step: number }
  | { type: "text_delta"; sessionId: string; runId: string; text: string }
  | {
      type: "tool_call_start";
      sessionId: string;
      runId: string;
      callId: string;
      tool: string;
      summary: string;
    }
  | {
      type: "tool_call_end";
      sessionId: string;
      runId: string;
      callId: string;
      tool: string;
      ok: boolean;
      summary: string;
    }
  | { type: "approval_required"; sessionId: string; runId: string; pending: PendingView }
  | { type: "user_input_required"; sessionId: string; runId: string; pending: PendingView }
  | { type: "task_list_changed"; sessionId: string; tasks: TaskItem[] }
  | { type: "mode_changed"; sessionId: string; from: Mode; to: Mode; by: "user" | "agent" }
  | {
      type: "compacted";
      sessionId: string;
      runId: string;
      summarizedEntries: number;
      /** Why: the context neared the window (`auto`) or the user asked (`/compact`). */
      trigger: "auto" | "user";
    }
  | {
      /** A model call ended: its usage and cost, the session's totals, and a budget warning if near one. */
      type: "usage";
      sessionId: string;
      runId: string;
      call: number;
      usage: Usage;
      cost: { amount: number; currency: Currency } | null;
      session: UsageTotals;
      warning: string | null;
    }
  | { type: "queued"; sessionId: string; queue: "steer" | "followup"; text: string }
  | { type: "turn_end"; sessionId: string; runId: string; step: number; toolCalls: number }
  | { type: "run_end"; sessionId: string; runId: string; status: RunStatus; finalMessage: string }
  | { type: "error"; sessionId: string; runId?: string; error: ErrorInfo };

export type HarnessEventType = HarnessEvent["type"];
export type HarnessListener = (event: HarnessEvent) => void;

/** A synchronous, typed event bus. A failing listener never breaks the loop or other listeners. */
export class EventBus {
  private readonly listeners = new Set<HarnessListener>();

  /** Subscribe; returns the unsubscribe function. */
  on(listener: HarnessListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Deliver an event to every listener. */
  emit(event: HarnessEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch {
        // A broken UI listener must not corrupt a run; it simply misses the event.
      }
    }
  }

  get size(): number {
    return this.listeners.size;
  }
}
