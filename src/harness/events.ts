import type { ErrorInfo } from "../core/errors.js";
import type { Mode } from "../tools/types.js";

/** One entry of a session's task list. */
export interface TaskItem {
  id: string;
  title: string;
  description?: string;
  status: "pending" | "in_progress" | "completed" | "cancelled";
}

/** How a run ended (or paused). */
export type RunStatus = "completed" | "waiting" | "error" | "aborted" | "step_limit";

/** A pending request the user must settle before the run continues. */
export interface PendingView {
  approvalId: string;
  /** `write`: a write stopped by a read-only mode; `switch_mode`; `user_input`: request_user_input. */
  kind: "write" | "switch_mode" | "user_input";
  /** The suspended tool call. */
  callId: string;
  tool: string;
  input: unknown;
  /** What the user sees: a diff, the question, the requested mode and reason. */
  preview: string;
}

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
  | { type: "compacted"; sessionId: string; runId: string; summarizedEntries: number }
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
