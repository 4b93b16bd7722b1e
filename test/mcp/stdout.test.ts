import { spawn } from "node:child_process";
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, type McpBed, mcpBed } from "./fixture.js";

let m: McpBed;
beforeAll(() => {
  m = mcpBed();
});
afterAll(() => m.close());

const call = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

/** Requests that make the server, its tools and their child processes do as much output as they can. */
const REQUESTS = [
  call(2, "read", { path: "lorebook/index.md" }),
  call(3, "bash", { command: "echo to-stdout; echo to-stderr >&2; printf 'no newline'" }),
  call(4, "execute_sql", { sql: "SELECT 1 AS one" }),
  call(5, "execute_sql", { sql: "CREATE TABLE t(a)" }),
  call(6, "execute_world", { code: "console.log('from the sandbox'); return world.time.now()" }),
  call(7, "execute_world", { code: "throw new Error('boom')" }),
  call(8, "edit", { path: "lorebook/index.md", edits: [{ oldText: 1 }] }),
  call(9, "read", { path: "../../etc/passwd" }),
  call(10, "no_such_tool", {}),
  { jsonrpc: "2.0", id: 11, method: "tools/list" },
  { jsonrpc: "2.0", id: 12, method: "resources/list" },
  { jsonrpc: "2.0", id: 13, method: "resources/read", params: { uri: "nbook://demo/lorebook/missing.md" } },
  { jsonrpc: "2.0", id: 14, method: "no/such/method" },
];

describe("nbook mcp over stdio", () => {
  it("writes nothing to stdout but JSON-RPC messages, whatever its tools print, and exits when stdin ends", async () => {
    const child = spawn(BIN, ["mcp", "--workspace", m.bed.ws.root, "--project", "demo"], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const ids = new Set<number>();
    const expected = [1, ...REQUESTS.map((r) => r.id)];
    const answered = new Promise<void>((resolve) => {
      child.stdout.setEncoding("utf8").on("data", (d: string) => {
        stdout += d;
        for (const line of stdout.split("\n").slice(0, -1)) {
          try {
            const id = (JSON.parse(line) as { id?: number }).id;
            if (id !== undefined) ids.add(id);
          } catch {
            // A non-JSON line fails the checks below.
          }
        }
        if (expected.every((id) => ids.has(id))) resolve();
      });
    });
    const send = (msg: unknown) => child.stdin.write(`${JSON.stringify(msg)}\n`);
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    child.stdin.write("this line is not JSON\n");
    for (const r of REQUESTS) send(r);
    await answered;
    child.stdin.end();
    const [code] = await once(child, "exit");
    expect(code).toBe(0);

    expect(stdout.endsWith("\n")).toBe(true);
    const lines = stdout.slice(0, -1).split("\n");
    for (const line of lines) {
      const msg = JSON.parse(line) as Record<string, unknown>;
      expect(msg.jsonrpc, line).toBe("2.0");
      expect("result" in msg || "error" in msg || "method" in msg, line).toBe(true);
    }
    expect(stdout).not.toContain(m.bed.dir);
    expect(stderr).toContain("neurobook mcp: project demo, profile leader.default, normal mode");
    const bash = lines.map((l) => JSON.parse(l)).find((msg) => msg.id === 3);
    expect(bash.result.content[0].text).toContain("to-stdout");
  });
});
