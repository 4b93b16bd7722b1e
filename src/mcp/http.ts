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
import { createMcpServer, type McpServerOptions } from "./server.js";

/** A running Streamable HTTP MCP endpoint. */
export interface McpHttpHandle {
  url: string;
  token: string;
  close(): Promise<void>;
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer (.+)$/.exec(header ?? "");
  if (!m) return false;
  const a = Buffer.from(m[1]);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

// Tool inputs are text; a body past this is a mistake or an attack, not a request.
const MAX_BODY = 8 * 1024 * 1024;

class BodyTooLarge extends Error {}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new BodyTooLarge();
    chunks.push(c as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

/** Serve MCP over Streamable HTTP on 127.0.0.1, every request guarded by a bearer token. */
export async function serveMcpHttp(
  opts: McpServerOptions & { port?: number; token?: string },
): Promise<McpHttpHandle> {
  const token = opts.token || randomBytes(24).toString("base64url");
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (!tokenMatches(req.headers.authorization, token)) {
      res.writeHead(401, { "www-authenticate": "Bearer" });
      res.end();
      return;
    }
    if (new URL(req.url ?? "/", "http://127.0.0.1").pathname !== "/mcp")
      return reply(res, 404, "Not found: use /mcp");
    const sid = req.headers["mcp-session-id"];
    const existing = typeof sid === "string" ? sessions.get(sid) : undefined;
    // MCP: a session id the server does not know (ended, or never issued) is answered with 404.
    if (sid !== undefined && !existing) return reply(res, 404, "Session not found: initialize a new one");
    if (req.method === "POST") {
      let body: unknown;
      try {
        body = await readJson(req);
      } catch (e) {
        if (e instanceof BodyTooLarge) return reply(res, 413, `Body larger than ${MAX_BODY} bytes`);
        return reply(res, 400, "Body is not valid JSON");
      }
      if (existing) return existing.handleRequest(req, res, body);
      if (!isInitializeRequest(body))
        return reply(res, 400, "No valid session: send an initialize request first");
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, transport);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await createMcpServer(opts).connect(transport);
      return transport.handleRequest(req, res, body);
    }
    if (req.method === "GET" || req.method === "DELETE")
      return existing ? existing.handleRequest(req, res) : reply(res, 400, "Missing mcp-session-id");
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
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    token,
    async close() {
      for (const t of sessions.values()) await t.close();
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      // Kept-alive client connections would otherwise hold the server open until they time out.
      http.closeAllConnections();
      await closed;
    },
  };
}
