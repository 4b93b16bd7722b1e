import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveMcpHttp } from "../../src/mcp/http.js";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { BIN, expectedTools, type McpBed, mcpBed, textOf } from "./fixture.js";

let m: McpBed;
beforeAll(() => {
  m = mcpBed();
});
afterAll(() => m.close());

const TOKEN = "test-token-0123456789";

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

describe("nbook mcp over Streamable HTTP", () => {
  it("serves list and call with the bearer token and refuses without it", async () => {
    const registry = createToolRegistry();
    const h = await serveMcpHttp({
      workspace: m.bed.ws,
      project: m.bed.project,
      registry,
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
      const huge = await fetch(h.url, {
        method: "POST",
        body: "x".repeat(9 * 1024 * 1024),
        headers: { "content-type": "application/json", authorization: `Bearer ${h.token}` },
      });
      expect(huge.status).toBe(413);
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
