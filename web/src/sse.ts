// Live updates from `nbook serve` over Server-Sent Events. The browser's EventSource reconnects on
// its own and sends Last-Event-ID, so the server replays what a dropped connection missed; this
// wrapper only parses each event's JSON and tells the caller whether the stream is connected.
import type { StreamEvent } from "./api";

/** The event names the server sends (harness events for a session, file changes for a workspace). */
const EVENT_TYPES = [
  "run_start",
  "turn_start",
  "text_delta",
  "tool_call_start",
  "tool_call_end",
  "approval_required",
  "user_input_required",
  "approval_settled",
  "task_list_changed",
  "mode_changed",
  "compacted",
  "queued",
  "turn_end",
  "run_end",
  "error",
  "files_changed",
  "session_created",
  "session_status",
  "project_created",
  "job_started",
  "job_ended",
  // The server's own: a cursor it no longer holds (reload the state), a subscriber too far behind.
  "reset",
  "overflow",
] as const;

/** Subscribe to an SSE stream; returns the function that closes it. */
export function subscribe(
  path: string,
  onEvent: (e: StreamEvent) => void | Promise<void>,
  onStatus?: (connected: boolean) => void,
): () => void {
  const source = new EventSource(path, { withCredentials: true });
  const handle = (name: string) => (msg: MessageEvent<string>) => {
    let data: unknown;
    try {
      data = JSON.parse(msg.data);
    } catch {
      return;
    }
    if (data && typeof data === "object") {
      const e = data as StreamEvent;
      // A failing handler (a request it made) must not keep the next events from being handled.
      try {
        Promise.resolve(onEvent({ ...e, type: typeof e.type === "string" ? e.type : name })).catch(() => {});
      } catch {}
    }
  };
  source.addEventListener("message", handle("message"));
  for (const t of EVENT_TYPES) source.addEventListener(t, handle(t) as EventListener);
  source.addEventListener("open", () => onStatus?.(true));
  // An "error" from EventSource itself is a dropped connection (it retries); a server-sent
  // `event: error` carries data and is delivered through the listener above.
  source.onerror = () => onStatus?.(source.readyState === EventSource.OPEN);
  return () => source.close();
}
