import { randomBytes } from "node:crypto";

/** One event of a stream; `id` is `<epoch>.<seq>` (the epoch tells this process's ids from another's). */
export interface StreamEvent {
  id: string;
  seq: number;
  type: string;
  data: unknown;
}

/** Sizes of a stream. */
export interface StreamLimits {
  /** Events kept for replay (default 2000). */
  capacity: number;
  /** Events one subscriber may be behind before it is dropped with `overflow` (default 512). */
  maxQueue: number;
  /** Keep-alive comment interval in ms (default 15000; 0 = none). */
  keepAliveMs: number;
}

const DEFAULT_STREAM_LIMITS: StreamLimits = { capacity: 2000, maxQueue: 512, keepAliveMs: 15_000 };

/** Every stream of this process shares one epoch, so a cursor from an earlier process is recognised. */
const EPOCH = randomBytes(4).toString("hex");

const encoder = new TextEncoder();

/** An event in the SSE wire format. */
function formatEvent(id: string | null, type: string, data: unknown): string {
  const json = JSON.stringify(data)
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
  return `${id === null ? "" : `id: ${id}\n`}event: ${type}\ndata: ${json}\n\n`;
}

interface Subscriber {
  controller: ReadableStreamDefaultController<Uint8Array>;
  timer: ReturnType<typeof setInterval> | null;
  closed: boolean;
}

/**
 * One event stream (a session's, or the workspace's): a ring of the latest events for replay, and
 * live subscribers, each with a bounded queue. A subscriber whose reader falls `maxQueue` events
 * behind gets `overflow` and is closed; it reconnects with its cursor and is replayed what it missed.
 */
export class EventLog {
  private readonly ring: (StreamEvent | undefined)[];
  private seq = 0;
  private readonly subs = new Set<Subscriber>();
  readonly limits: StreamLimits;

  constructor(limits: Partial<StreamLimits> = {}) {
    this.limits = { ...DEFAULT_STREAM_LIMITS, ...limits };
    this.ring = new Array(this.limits.capacity);
  }

  /** Live subscribers. */
  get subscribers(): number {
    return this.subs.size;
  }

  /** The id of the latest event (null before the first). */
  get lastId(): string | null {
    return this.seq === 0 ? null : `${EPOCH}.${this.seq}`;
  }

  /** Record an event and send it to every subscriber. */
  publish(type: string, data: unknown): StreamEvent {
    const seq = ++this.seq;
    const event: StreamEvent = { id: `${EPOCH}.${seq}`, seq, type, data };
    this.ring[seq % this.limits.capacity] = event;
    if (this.subs.size === 0) return event;
    const chunk = encoder.encode(formatEvent(event.id, type, data));
    for (const s of this.subs) this.send(s, chunk);
    return event;
  }

  /**
   * A `text/event-stream` body: the events after `cursor` still held (or `reset` when some are
   * gone, or the cursor is another process's), then the live ones.
   */
  subscribe(cursor: string | null): ReadableStream<Uint8Array> {
    let sub: Subscriber | null = null;
    return new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          sub = { controller, timer: null, closed: false };
          // Opened with a comment so the response starts at once: a quiet stream would otherwise
          // send nothing until its first event or keep-alive, and the browser would not know it is open.
          controller.enqueue(encoder.encode(`: connected\n\n${this.replay(cursor)}`));
          this.subs.add(sub);
          if (this.limits.keepAliveMs > 0) {
            const s = sub;
            s.timer = setInterval(
              () => this.send(s, encoder.encode(": keep-alive\n\n")),
              this.limits.keepAliveMs,
            );
            s.timer.unref?.();
          }
        },
        cancel: () => {
          if (sub) this.drop(sub);
        },
      },
      // The queue is counted in chunks: one per event, plus the opening chunk (comment and replay).
      new CountQueuingStrategy({ highWaterMark: this.limits.maxQueue + 1 }),
    );
  }

  /** Close every subscriber (the server is stopping). */
  closeAll(): void {
    for (const s of [...this.subs]) {
      this.drop(s);
      try {
        s.controller.close();
      } catch {
        // Already closed by its reader.
      }
    }
  }

  /** The replay text for a cursor: the events after it, `reset` for a gap, or "" for none. */
  private replay(cursor: string | null): string {
    if (cursor === null || cursor === "") return "";
    const m = /^([0-9a-f]+)\.(\d+)$/.exec(cursor);
    const after = m && m[1] === EPOCH ? Number(m[2]) : null;
    const oldest = Math.max(1, this.seq - this.limits.capacity + 1);
    if (after === null || after > this.seq || (after < oldest - 1 && this.seq > 0)) {
      return formatEvent(this.lastId, "reset", { reason: "gap" });
    }
    let out = "";
    for (let s = after + 1; s <= this.seq; s++) {
      const e = this.ring[s % this.limits.capacity] as StreamEvent;
      out += formatEvent(e.id, e.type, e.data);
    }
    return out;
  }

  private send(s: Subscriber, chunk: Uint8Array): void {
    if (s.closed) return;
    if ((s.controller.desiredSize ?? 0) <= 0) {
      // The reader is too far behind: tell it, and stop holding events for it.
      this.drop(s);
      s.controller.enqueue(encoder.encode(formatEvent(null, "overflow", { maxQueue: this.limits.maxQueue })));
      s.controller.close();
      return;
    }
    s.controller.enqueue(chunk);
  }

  private drop(s: Subscriber): void {
    s.closed = true;
    if (s.timer) clearInterval(s.timer);
    this.subs.delete(s);
  }
}
