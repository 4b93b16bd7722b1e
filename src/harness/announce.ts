import type { EventBus, HarnessEvent } from "./events.js";
import type { Entry } from "./store/index.js";

/**
 * The bus events a committed entry stands for. The loop announces what it has recorded, never
 * beside it, so the event stream and the session history cannot tell different stories.
 */
export function entryEvents(sessionId: string, entry: Entry): HarnessEvent[] {
  switch (entry.kind) {
    case "run_start":
      return [{ type: "run_start", sessionId, runId: entry.data.runId, invocation: entry.data.invocation }];
    case "run_error":
      return [{ type: "error", sessionId, runId: entry.data.runId, error: entry.data.error }];
    case "run_end":
      return [
        {
          type: "run_end",
          sessionId,
          runId: entry.data.runId,
          status: entry.data.status,
          finalMessage: entry.data.finalMessage ?? "",
        },
      ];
    case "task_list":
      return [{ type: "task_list_changed", sessionId, tasks: entry.data.tasks }];
    case "mode_change":
      return [
        { type: "mode_changed", sessionId, from: entry.data.from, to: entry.data.to, by: entry.data.by },
      ];
    default:
      return [];
  }
}

/** Emit the events of entries just committed, in their order. */
export function announce(bus: EventBus, sessionId: string, entries: readonly Entry[]): void {
  for (const entry of entries) for (const event of entryEvents(sessionId, entry)) bus.emit(event);
}
