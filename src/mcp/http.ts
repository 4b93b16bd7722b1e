import { randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_DETACHED_GRACE_MS, DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS } from "./defaults.js";
import { createMcpServer, type McpServerOptions } from "./server.js";
import { McpSessions } from "./sessions.js";
import { assertStrongToken } from "./token.js";

/** A running Streamable HTTP MCP endpoint. */
export interface McpHttpHandle {
  url: string;
  token: string;
  close(): Promise<void>;
}

/** How the HTTP endpoint runs, beyond the server's own options. */
export interface McpHttpOptions extends McpServerOptions {
  /** 0 (or absent) = any free port. */
  port?: number;
  /** The bearer token, checked by assertStrongToken. Absent = a random one. */
  token?: string;
  /** Most sessions open at once; an initialize beyond it gets 503. */
  maxSessions?: number;
  /** A session without any request for this long is closed (its id then gets 404). */
  sessionIdleMs?: number;
  /** How long a session whose client closed its stream is kept for the client to come back. */
  detachedGraceMs?: number;
  /** The clock idle sessions are measured with (tests move it). */
  now?: () => number;
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer (.+)$/.exec(header ?? "");
  if (!m) return false;
  const a = Buffer.from(m[1]);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function reply(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

/**
 * Why a request may not reach the endpoint, or null. Only this machine's clients talking to this
 * port are served: a Host other than a loopback name with our port is a DNS-rebinding page, and
 * an Origin other than our own is a web page in the user's browser.
 */
function refusedOrigin(req: IncomingMessage, port: number): string | null {
  const allowed = [`127.0.0.1:${port}`, `localhost:${port}`];
  const host = req.headers.host?.toLowerCase();
  if (!host || !allowed.includes(host)) return `Forbidden: Host must be ${allowed.join(" or ")}`;
  const origin = req.headers.origin;
  if (origin !== undefined && !allowed.some((h) => origin.toLowerCase() === `http://${h}`)) {
    return "Forbidden: cross-origin requests are not served";
  }
  return null;
}

// Tool inputs are text; a body past this is a mistake or an attack, not a request.
const MAX_BODY = 8 * 1024 * 1024;
/** Most of an over-cap body read out to answer it; past this the connection is closed. */
const DRAIN_LIMIT = 64 * 1024 * 1024;

class BodyTooLarge extends Error {}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  // An over-cap body is still read out (to DRAIN_LIMIT): leaving the loop would reset the
  // connection, and the client would see a failed upload instead of the 413.
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > DRAIN_LIMIT) throw new BodyTooLarge();
    if (size <= MAX_BODY) chunks.push(c as Buffer);
  }
  if (size > MAX_BODY) throw new BodyTooLarge();
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

/**
 * Serve MCP over Streamable HTTP on 127.0.0.1. Every request needs a loopback Host with this port,
 * no foreign Origin, and the bearer token. At most `maxSessions` sessions are open at once; a
 * session idle for `sessionIdleMs` (no request, none open) is closed, and one whose client closed
 * its stream sooner (McpSessions).
 */
export async function serveMcpHttp(opts: McpHttpOptions): Promise<McpHttpHandle> {
  if (opts.token !== undefined) assertStrongToken(opts.token);
  const token = opts.token ?? randomBytes(32).toString("base64url");
  const maxSessions = opts.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const idleMs = opts.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const sessions = new McpSessions({
    max: maxSessions,
    idleMs,
    graceMs: opts.detachedGraceMs ?? DEFAULT_DETACHED_GRACE_MS,
    now: opts.now ?? Date.now,
  });
  let port = 0;

  const startSession = async (req: IncomingMessage, res: ServerResponse, body: unknown) => {
    if (!(await sessions.reserve())) {
      return reply(
        res,
        503,
        `Too many MCP sessions (${maxSessions}): end one (DELETE /mcp) or wait for an idle one to expire (after ${Math.round(idleMs / 1000)} s)`,
        { "retry-after": String(Math.max(1, Math.round(Math.min(idleMs, 60_000) / 1000))) },
      );
    }
    try {
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.add(id, transport),
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.remove(transport.sessionId);
      };
      await createMcpServer(opts).connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      sessions.release();
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const refused = refusedOrigin(req, port);
    if (refused) return reply(res, 403, refused);
    if (!tokenMatches(req.headers.authorization, token)) {
      res.writeHead(401, { "www-authenticate": "Bearer" });
      res.end();
      return;
    }
    if (new URL(req.url ?? "/", "http://127.0.0.1").pathname !== "/mcp")
      return reply(res, 404, "Not found: use /mcp");
    await sessions.expire();
    const sid = req.headers["mcp-session-id"];
    const existing = typeof sid === "string" ? sessions.get(sid) : undefined;
    // MCP: a session id the server does not know (ended, expired, or never issued) is answered with 404.
    if (sid !== undefined && !existing) return reply(res, 404, "Session not found: initialize a new one");
    if (existing) sessions.track(existing, res, req.method === "GET");
    if (req.method === "POST") {
      let body: unknown;
      try {
        body = await readJson(req);
      } catch (e) {
        if (e instanceof BodyTooLarge) return reply(res, 413, `Body larger than ${MAX_BODY} bytes`);
        return reply(res, 400, "Body is not valid JSON");
      }
      if (existing) return existing.transport.handleRequest(req, res, body);
      if (!isInitializeRequest(body))
        return reply(res, 400, "No valid session: send an initialize request first");
      return startSession(req, res, body);
    }
    if (req.method === "GET" || req.method === "DELETE")
      return existing
        ? existing.transport.handleRequest(req, res)
        : reply(res, 400, "Missing mcp-session-id");
    return reply(res, 405, "Method not allowed: use POST, GET or DELETE");
  };

  const http: HttpServer = createServer((req, res) => {
    handle(req, res).catch((e) => {
      opts.log?.(`mcp http error: ${(e as Error).message}`);
      if (!res.headersSent) reply(res, 500, "Internal error");
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(opts.port ?? 0, "127.0.0.1", () => {
      http.off("error", reject);
      resolve();
    });
  });
  port = (http.address() as AddressInfo).port;
  // Idle sessions are also closed when no request comes to trigger it; the timer never keeps the process up.
  const sweeper = setInterval(
    () => void sessions.expire().catch(() => {}),
    Math.max(1000, Math.min(idleMs, 60_000)),
  );
  sweeper.unref();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    token,
    async close() {
      clearInterval(sweeper);
      await sessions.closeAll();
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      // Kept-alive client connections would otherwise hold the server open until they time out.
      http.closeAllConnections();
      await closed;
    },
  };
}
