// Live updates from `nbook serve` over Server-Sent Events. The browser's EventSource reconnects on
// its own and sends Last-Event-ID, so the server replays what a dropped connection missed; this
// module parses each event's JSON, tells subscribers whether the stream is connected, and shares
// one connection per stream among all of a tab's subscribers (a browser allows only six
// connections to one server, across its tabs).
import type { StreamEvent } from "./api";

/** The event names the server sends (harness events for a session, workspace events). */
const EVENT_TYPES = [
  "run_start",
  "turn_start",
  "text_delta",
  "tool_call_start",
  "tool_call_end",
  "approval_required",
  "user_input_required",
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
  "import_progress",
  "job_started",
  "job_ended",
  // The server's own: a cursor it no longer holds (reload the state), a subscriber too far behind.
  "reset",
  "overflow",
] as const;

interface Subscriber {
  onEvent: (e: StreamEvent) => void | Promise<void>;
  onStatus?: (connected: boolean) => void;
}

interface Shared {
  source: EventSource;
  subscribers: Set<Subscriber>;
}

const streams = new Map<string, Shared>();

function open(path: string): Shared {
  const source = new EventSource(path, { withCredentials: true });
  const shared: Shared = { source, subscribers: new Set() };
  const handle = (name: string) => (msg: MessageEvent<string>) => {
    let data: unknown;
    try {
      data = JSON.parse(msg.data);
    } catch {
      return;
    }
    if (!data || typeof data !== "object") return;
    const e = data as StreamEvent;
    const event = { ...e, type: typeof e.type === "string" ? e.type : name };
    for (const s of [...shared.subscribers]) {
      // A failing handler (a request it made) must not keep the others from their event.
      try {
        Promise.resolve(s.onEvent(event)).catch(() => {});
      } catch {}
    }
  };
  source.addEventListener("message", handle("message"));
  for (const t of EVENT_TYPES) source.addEventListener(t, handle(t) as EventListener);
  source.addEventListener("open", () => {
    for (const s of [...shared.subscribers]) s.onStatus?.(true);
  });
  // An "error" from EventSource itself is a dropped connection (it retries); a server-sent
  // `event: error` carries data and is delivered through the listener above.
  source.onerror = () => {
    for (const s of [...shared.subscribers]) s.onStatus?.(source.readyState === EventSource.OPEN);
  };
  return shared;
}

/** Subscribe to an SSE stream; returns the function that ends the subscription. */
export function subscribe(
  path: string,
  onEvent: (e: StreamEvent) => void | Promise<void>,
  onStatus?: (connected: boolean) => void,
): () => void {
  let shared = streams.get(path);
  if (!shared) {
    shared = open(path);
    streams.set(path, shared);
  }
  const me: Subscriber = { onEvent, onStatus };
  const s = shared;
  s.subscribers.add(me);
  // Joining a stream that is already open: it is connected now, as far as this subscriber knows.
  if (s.source.readyState === EventSource.OPEN)
    queueMicrotask(() => {
      if (s.subscribers.has(me)) onStatus?.(true);
    });
  return () => {
    s.subscribers.delete(me);
    if (s.subscribers.size === 0) {
      s.source.close();
      if (streams.get(path) === s) streams.delete(path);
    }
  };
}
