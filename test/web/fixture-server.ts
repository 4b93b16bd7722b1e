import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A route handler of the fixture server. */
export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A loopback HTTP server for web tests: 127.0.0.1, port 0, routes by path. */
export interface FixtureServer {
  port: number;
  /** `http://127.0.0.1:<port><path>` */
  url(path: string): string;
  /** TCP connections accepted so far. */
  connections(): number;
  /** Request paths (with query) in arrival order. */
  requests: { method: string; url: string; headers: IncomingMessage["headers"]; body: string }[];
  route(path: string, handler: Handler): void;
  close(): Promise<void>;
}

/** Start a fixture server; unknown paths answer 404. */
export async function startFixtureServer(routes: Record<string, Handler> = {}): Promise<FixtureServer> {
  const table = new Map(Object.entries(routes));
  const requests: FixtureServer["requests"] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => {
      body += d;
    });
    req.on("end", () => {
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      const path = (req.url ?? "/").split("?")[0];
      const handler = table.get(path);
      if (handler) handler(req, res);
      else {
        res.writeHead(404, { "content-type": "text/plain" });
        res.end("not found");
      }
    });
  });
  server.on("connection", () => {
    connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    connections: () => connections,
    requests,
    route: (path, handler) => {
      table.set(path, handler);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A handler answering with a fixed status, headers and body. */
export function respond(
  status: number,
  headers: Record<string, string>,
  body: string | Buffer = "",
): Handler {
  return (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };
}
