import type { ServerResponse } from "node:http";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

/** One MCP session: its transport, when it was last used, and how many of its requests are open. */
export interface McpSession {
  transport: StreamableHTTPServerTransport;
  lastActive: number;
  open: number;
  /** The client closed its GET stream and has not opened another: it is most likely gone. */
  streamGone: boolean;
}

/** How long sessions live. */
export interface McpSessionLimits {
  /** Most sessions open at once. */
  max: number;
  /** A session without any request for this long is closed. */
  idleMs: number;
  /** A session whose client closed its stream is closed after this long without a request. */
  graceMs: number;
  now: () => number;
}

/**
 * The open sessions of an MCP HTTP endpoint, and when each is ended. The official client's
 * `close()` sends no DELETE: it only aborts its requests, its GET stream among them. A stream
 * the client closed (the server did not end it) is taken as the client leaving: its session is
 * closed after a short grace (a client reconnecting its stream keeps it), and at the cap it makes
 * room for a new client at once. A client that vanishes without a word (it never opened a stream)
 * keeps its place until the idle timeout.
 */
export class McpSessions {
  private readonly byId = new Map<string, McpSession>();
  // Initializations under way count against the cap, so a burst cannot overshoot it.
  private starting = 0;

  constructor(private readonly limits: McpSessionLimits) {}

  get(id: string): McpSession | undefined {
    return this.byId.get(id);
  }

  add(id: string, transport: StreamableHTTPServerTransport): void {
    this.byId.set(id, { transport, lastActive: this.limits.now(), open: 0, streamGone: false });
  }

  /** Forget a session (its transport closed). */
  remove(id: string): void {
    this.byId.delete(id);
  }

  /**
   * Reserve a place for a session being initialized; false at the cap, when no session whose client
   * left can give up its place. `release()` ends the reservation.
   */
  async reserve(): Promise<boolean> {
    while (this.byId.size + this.starting >= this.limits.max) {
      const left = [...this.byId]
        .filter(([, s]) => s.streamGone && s.open === 0)
        .sort(([, a], [, b]) => a.lastActive - b.lastActive)[0];
      if (!left) return false;
      await this.end(left[0], left[1]);
    }
    this.starting++;
    return true;
  }

  release(): void {
    this.starting--;
  }

  /**
   * Count one request of a session while its response is open; `stream` marks the client's GET
   * stream, whose closing by the client starts the session's grace.
   */
  track(s: McpSession, res: ServerResponse, stream: boolean): void {
    const before = s.streamGone;
    s.open++;
    s.lastActive = this.limits.now();
    if (stream) s.streamGone = false;
    res.once("close", () => {
      s.open--;
      s.lastActive = this.limits.now();
      // A refused GET (a second stream, a bad Accept) changes nothing; one the server ended is its own doing.
      if (stream && res.statusCode !== 200) s.streamGone = before;
      else if (stream && !res.writableFinished) s.streamGone = true;
      if (s.streamGone && s.open === 0) {
        setTimeout(() => void this.expire().catch(() => {}), this.limits.graceMs + 1).unref();
      }
    });
  }

  /** Close the sessions past their idle timeout, or past their grace once their client left. */
  async expire(): Promise<void> {
    const now = this.limits.now();
    for (const [id, s] of this.byId) {
      const limit = s.streamGone ? this.limits.graceMs : this.limits.idleMs;
      if (s.open === 0 && s.lastActive <= now - limit) await this.end(id, s);
    }
  }

  /** Close every session. */
  async closeAll(): Promise<void> {
    for (const [id, s] of this.byId) await this.end(id, s);
  }

  private async end(id: string, s: McpSession): Promise<void> {
    // Forgotten first, so a request arriving while it closes gets 404 rather than a closing transport.
    this.byId.delete(id);
    await s.transport.close();
  }
}
