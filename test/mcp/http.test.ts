import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type McpHttpHandle, type McpHttpOptions, serveMcpHttp } from "../../src/mcp/http.js";
import { loadedToolSet } from "../../src/mcp/tool-set.js";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { pacedUpload } from "../upload.js";
import { BIN, expectedTools, type McpBed, mcpBed, textOf } from "./fixture.js";

let m: McpBed;
beforeAll(() => {
  m = mcpBed();
});
afterAll(() => m.close());

const TOKEN = "test-token-0123456789-abcdefghijklmnop";

/** A connected SDK client for `url` sending `token`. */
async function httpClient(url: string, token: string): Promise<Client> {
  const c = new Client({ name: "t", version: "1" });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return c;
}

/** Start `nbook mcp --http` and wait for the two lines it prints: the URL and the token. */
async function startCli(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; out: string }> {
  const child = spawn(BIN, ["mcp", "--workspace", m.bed.ws.root, "--project", "demo", "--http", ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.setEncoding("utf8");
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d: string) => {
      out += d;
      if (out.includes("Authorization: Bearer ") && out.endsWith("\n")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`nbook mcp --http exited with ${code}`)));
  });
  return { child, out };
}

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};

/** A POST through node:http, which (unlike fetch) lets a test send any Host header. */
function rawPost(
  url: string,
  headers: Record<string, string>,
  body: unknown = INIT,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          text += d;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

/** An in-process endpoint on the sample project, as the writer. */
function serve(extra: Partial<McpHttpOptions> = {}): Promise<McpHttpHandle> {
  return serveMcpHttp({
    workspace: m.bed.ws,
    project: m.bed.project,
    tools: loadedToolSet(createToolRegistry(), m.bed.catalog, "writer"),
    catalog: m.bed.catalog,
    profileKey: "writer",
    mode: "normal",
    log: () => {},
    ...extra,
  });
}

describe("nbook mcp over Streamable HTTP", () => {
  it("serves list and call with the bearer token and refuses without it", async () => {
    const h = await serveMcpHttp({
      workspace: m.bed.ws,
      project: m.bed.project,
      tools: loadedToolSet(createToolRegistry(), m.bed.catalog, "writer"),
      catalog: m.bed.catalog,
      profileKey: "writer",
      mode: "normal",
      log: () => {},
    });
    try {
      const noToken = await fetch(h.url, {
        method: "POST",
        body: "{}",
        headers: { "content-type": "application/json" },
      });
      expect(noToken.status).toBe(401);
      await expect(httpClient(h.url, "nope")).rejects.toThrow();
      const c = await httpClient(h.url, h.token);
      const { tools } = await c.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(expectedTools(m.bed, "writer"));
      const r = await c.callTool({ name: "read", arguments: { path: "manuscript/02-low-water/index.md" } });
      expect(textOf(r)).toContain("Low Water");
      await c.close();
      // Answered once read out: a client uploading it more slowly than loopback allows sees the 413,
      // not a reset connection.
      const port = new URL(h.url).port;
      const headers = { "content-type": "application/json", authorization: `Bearer ${h.token}` };
      const body = Buffer.from("x".repeat(9 * 1024 * 1024));
      for (const withLength of [true, false]) {
        const huge = await pacedUpload({ port, method: "POST", path: "/mcp", headers }, body, withLength);
        expect(huge.error).toBeUndefined();
        expect(huge.status).toBe(413);
        expect(huge.text).toContain("Body larger than");
      }
    } finally {
      await h.close();
    }
  });

  it("nbook mcp --http prints its URL, takes NBOOK_MCP_TOKEN, and guards every request with it", async () => {
    const { child, out } = await startCli(["--profile", "writer"], { NBOOK_MCP_TOKEN: TOKEN });
    try {
      const url = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/.exec(out)?.[1];
      expect(url).toBeDefined();
      expect(out).toContain(`Authorization: Bearer ${TOKEN}\n`);
      const init = {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      };
      const post = (headers: Record<string, string>) =>
        fetch(url!, {
          method: "POST",
          body: JSON.stringify(init),
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            ...headers,
          },
        });
      expect((await post({})).status).toBe(401);
      expect((await post({ authorization: `Bearer ${TOKEN.slice(0, -1)}` })).status).toBe(401);
      expect((await post({ authorization: "Bearer wrong" })).status).toBe(401);
      expect((await post({ authorization: `Bearer ${TOKEN}`, "mcp-session-id": "unknown" })).status).toBe(
        404,
      );

      const c = await httpClient(url!, TOKEN);
      const { tools } = await c.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(expectedTools(m.bed, "writer"));
      const r = await c.callTool({ name: "read", arguments: { path: "lorebook/index.md" } });
      expect(r.isError).toBeFalsy();
      expect(textOf(r)).toContain("Lorebook");
      const esc = await c.callTool({ name: "read", arguments: { path: "../../etc/passwd" } });
      expect(textOf(esc)).toContain("[path_escape]");
      await c.close();
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  });

  it("refuses a short NBOOK_MCP_TOKEN before serving anything", async () => {
    const child = spawn(BIN, ["mcp", "--workspace", m.bed.ws.root, "--project", "demo", "--http"], {
      env: { ...process.env, NBOOK_MCP_TOKEN: "x" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr!.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const [code] = await once(child, "exit");
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain("The MCP bearer token must be at least 32 random characters (this one has 1)");
    expect(stderr).toContain("unset NBOOK_MCP_TOKEN to get a random one");
  });

  it("refuses a long but predictable NBOOK_MCP_TOKEN before serving anything, saying how to make one", async () => {
    const child = spawn(BIN, ["mcp", "--workspace", m.bed.ws.root, "--project", "demo", "--http"], {
      env: { ...process.env, NBOOK_MCP_TOKEN: "a".repeat(40) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr!.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const [code] = await once(child, "exit");
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain("too predictable");
    expect(stderr).toContain("openssl rand -hex 32");
  });

  it("reports a port that is taken as an error, without a stack trace", async () => {
    const { child, out } = await startCli([], { NBOOK_MCP_TOKEN: TOKEN });
    try {
      const port = /127\.0\.0\.1:(\d+)\//.exec(out)![1];
      const second = spawn(
        BIN,
        ["mcp", "--workspace", m.bed.ws.root, "--project", "demo", "--http", "--port", port],
        {
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let stderr = "";
      second.stderr!.setEncoding("utf8").on("data", (d: string) => {
        stderr += d;
      });
      const [code] = await once(second, "exit");
      expect(code).toBe(1);
      expect(stderr).toBe("error [io_error]: listen failed: EADDRINUSE\n");
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  });
});

describe("MCP over HTTP: who may connect", () => {
  it("generates a long random token and refuses short or header-unsafe ones", async () => {
    const h = await serve();
    try {
      expect(h.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    } finally {
      await h.close();
    }
    await expect(serve({ token: "a".repeat(31) })).rejects.toMatchObject({ code: "invalid_input" });
    await expect(serve({ token: `${"a".repeat(31)} b` })).rejects.toMatchObject({ code: "invalid_input" });
  });

  it("refuses a long token with too little entropy (repeats, runs, a pattern) and takes random ones", async () => {
    for (const token of [
      "a".repeat(64),
      "abcdefghijklmnopqrstuvwxyz0123456789",
      "0123456789abcdef0123456789abcdef",
      "k3Jq".repeat(10),
      "password-password-password-password",
    ]) {
      await expect(serve({ token }), token).rejects.toMatchObject({
        code: "invalid_input",
        message: expect.stringContaining("too predictable"),
      });
    }
    for (const token of [randomBytes(16).toString("hex"), randomBytes(32).toString("base64url"), TOKEN]) {
      const h = await serve({ token });
      expect(h.token).toBe(token);
      await h.close();
    }
  });

  it("serves only loopback Host names with its own port, and no foreign Origin", async () => {
    const h = await serve({ token: TOKEN });
    const port = new URL(h.url).port;
    const auth = { authorization: `Bearer ${TOKEN}` };
    try {
      for (const host of ["evil.example", `evil.example:${port}`, "127.0.0.1:1", `127.0.0.2:${port}`]) {
        const r = await rawPost(h.url, { ...auth, host });
        expect(r.status, host).toBe(403);
        expect(r.text).toContain("Forbidden: Host must be");
      }
      // A DNS-rebinding page is refused before the token is even looked at.
      expect((await rawPost(h.url, { host: "evil.example" })).status).toBe(403);
      for (const origin of [
        "http://evil.example",
        "null",
        `http://127.0.0.1:${port}.evil.example`,
        `https://127.0.0.1:${port}`,
      ]) {
        const r = await rawPost(h.url, { ...auth, origin });
        expect(r.status, origin).toBe(403);
        expect(r.text).toContain("cross-origin");
      }
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
        expect((await rawPost(h.url, { ...auth, host })).status, host).toBe(200);
      }
      expect((await rawPost(h.url, { ...auth, origin: `http://localhost:${port}` })).status).toBe(200);
    } finally {
      await h.close();
    }
  });
});

describe("MCP over HTTP: sessions are capped and idle ones expire", () => {
  const auth = { authorization: `Bearer ${TOKEN}` };
  const open = async (h: McpHttpHandle) => {
    const r = await rawPost(h.url, auth);
    return { status: r.status, id: r.headers["mcp-session-id"] as string | undefined, text: r.text };
  };
  const ping = (h: McpHttpHandle, id: string) =>
    rawPost(
      h.url,
      { ...auth, "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" },
      {
        jsonrpc: "2.0",
        id: 2,
        method: "ping",
      },
    );

  it("answers an initialize beyond the cap with 503, and a session ended by its client frees a place", async () => {
    const h = await serve({ token: TOKEN, maxSessions: 2 });
    try {
      const a = await open(h);
      const b = await open(h);
      expect([a.status, b.status]).toEqual([200, 200]);
      const c = await open(h);
      expect(c.status).toBe(503);
      expect(c.text).toContain("Too many MCP sessions (2)");
      expect((await ping(h, a.id!)).status).toBe(200);
      const ended = await fetch(h.url, {
        method: "DELETE",
        headers: { ...auth, "mcp-session-id": a.id!, "mcp-protocol-version": "2025-06-18" },
      });
      expect(ended.status).toBe(200);
      expect((await ping(h, a.id!)).status).toBe(404);
      expect((await open(h)).status).toBe(200);
    } finally {
      await h.close();
    }
  });

  it("closes a session after sessionIdleMs without requests; a used one stays", async () => {
    let clock = 1_000_000;
    const h = await serve({ token: TOKEN, maxSessions: 2, sessionIdleMs: 60_000, now: () => clock });
    try {
      const idle = await open(h);
      const busy = await open(h);
      clock += 40_000;
      expect((await ping(h, busy.id!)).status).toBe(200);
      clock += 30_000; // idle: 70 s without a request; busy: 30 s
      expect((await ping(h, idle.id!)).status).toBe(404);
      expect((await ping(h, busy.id!)).status).toBe(200);
      // The expired session's place is free again.
      expect((await open(h)).status).toBe(200);
      expect((await open(h)).status).toBe(503);
    } finally {
      await h.close();
    }
  });
});

describe("MCP over HTTP: a client that closes frees its session", () => {
  const auth = { authorization: `Bearer ${TOKEN}` };
  const ping = (h: McpHttpHandle, id: string) =>
    rawPost(
      h.url,
      { ...auth, "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" },
      { jsonrpc: "2.0", id: 2, method: "ping" },
    );
  /** Connect the official client, use it, and close it (its close() sends no DELETE); its session id. */
  const useAndClose = async (url: string, token: string): Promise<string> => {
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    const c = new Client({ name: "t", version: "1" });
    await c.connect(transport);
    expect((await c.listTools()).tools.length).toBeGreaterThan(0);
    const id = transport.sessionId!;
    await c.close();
    return id;
  };

  it("the official client opens and closes 100 times against nbook mcp --http, and the 101st still connects", async () => {
    const { child, out } = await startCli(["--profile", "writer"], { NBOOK_MCP_TOKEN: TOKEN });
    try {
      const url = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/.exec(out)![1];
      for (let i = 0; i < 100; i++) await useAndClose(url, TOKEN);
      const c = await httpClient(url, TOKEN);
      const r = await c.callTool({ name: "read", arguments: { path: "lorebook/index.md" } });
      expect(textOf(r)).toContain("Lorebook");
      await c.close();
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  }, 120_000);

  it("ends a session once its client's stream has been gone for the grace; a stream reopened in time keeps it", async () => {
    const h = await serve({ token: TOKEN, detachedGraceMs: 300 });
    try {
      const closed = await useAndClose(h.url, TOKEN);
      // (A request within the grace would keep the session: the client may still be there.)
      await new Promise((r) => setTimeout(r, 600));
      expect((await ping(h, closed)).status).toBe(404);

      // A client whose stream drops and comes back within the grace keeps its session.
      const id = (await rawPost(h.url, auth)).headers["mcp-session-id"] as string;
      const stream = () => {
        const ac = new AbortController();
        const res = fetch(h.url, {
          headers: {
            ...auth,
            accept: "text/event-stream",
            "mcp-session-id": id,
            "mcp-protocol-version": "2025-06-18",
          },
          signal: ac.signal,
        });
        return { ac, res };
      };
      const first = stream();
      expect((await first.res).status).toBe(200);
      first.ac.abort();
      await new Promise((r) => setTimeout(r, 100));
      const second = stream();
      expect((await second.res).status).toBe(200);
      await new Promise((r) => setTimeout(r, 600));
      expect((await ping(h, id)).status).toBe(200);
      second.ac.abort();
    } finally {
      await h.close();
    }
  });

  it("at the cap, a new client takes the place of a closed client's session still in its grace", async () => {
    const h = await serve({ token: TOKEN, maxSessions: 2, detachedGraceMs: 60_000 });
    try {
      for (let i = 0; i < 5; i++) await useAndClose(h.url, TOKEN);
      // A session whose client never opened a stream (it may still come back) is not taken.
      const raw = await rawPost(h.url, auth);
      expect(raw.status).toBe(200);
      const other = await rawPost(h.url, auth);
      expect(other.status).toBe(200);
      expect((await rawPost(h.url, auth)).status).toBe(503);
    } finally {
      await h.close();
    }
  });
});
