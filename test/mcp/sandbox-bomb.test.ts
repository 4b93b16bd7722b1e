import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { threadCpuTicks } from "../helpers.js";
import { BIN, errorOf, type McpBed, mcpBed, textOf } from "./fixture.js";

/** A QuickJS builtin that never checks the interrupt: it would run for hours. */
const BOMB = "Array.prototype.indexOf.call({ length: 2 ** 40 }, 1)";

let m: McpBed;
let server: ChildProcess;
let url: string;
let token: string;
const clients: Client[] = [];

/** Start one `nbook mcp --http` for the writer (execute_world read-only: a 5 s limit) and read its URL and token. */
async function startServer(): Promise<void> {
  const { NBOOK_MCP_TOKEN: _, ...env } = process.env;
  server = spawn(
    BIN,
    ["mcp", "--workspace", m.bed.ws.root, "--project", "demo", "--http", "--profile", "writer"],
    { env, stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  server.stdout!.setEncoding("utf8");
  await new Promise<void>((resolve, reject) => {
    server.stdout!.on("data", (d: string) => {
      out += d;
      if (/Authorization: Bearer \S+\n/.test(out)) resolve();
    });
    server.once("exit", (code) => reject(new Error(`nbook mcp --http exited with ${code}`)));
  });
  url = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out)![1];
  token = /Authorization: Bearer (\S+)\n/.exec(out)![1];
}

async function client(): Promise<Client> {
  const c = new Client({ name: "t", version: "1" });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(c);
  return c;
}

/** `p`, or a failure naming `what` when it takes longer than `ms`. */
async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} was not answered within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

const world = (c: Client, code: string) =>
  c.callTool({ name: "execute_world", arguments: { code } }, undefined, { timeout: 60_000 });

/**
 * Run `code` (a bomb) on client A and, once it is running, a read on client B: B must be answered
 * within 1 s while A's call is still running, and A's call must end in `timeout`.
 */
async function bombWhileAnother(code: string): Promise<void> {
  const [a, b] = [await client(), await client()];
  expect(textOf(await world(a, "return 'warm'"))).toBe("warm");
  let bombDone = false;
  const bomb = world(a, code).finally(() => {
    bombDone = true;
  });
  // If this test fails first, the bomb's call is cut when the server is killed.
  bomb.catch(() => undefined);
  // Once the script runs, one of the server's threads spins: 200 ms of CPU since the call.
  const before = threadCpuTicks(server.pid ?? 0);
  while (![...threadCpuTicks(server.pid ?? 0)].some(([tid, t]) => t - (before.get(tid) ?? 0) >= 20)) {
    if (bombDone) throw new Error("the script ended before it could be seen running");
    await new Promise((r) => setTimeout(r, 20));
  }
  const read = await within(
    b.callTool({ name: "read", arguments: { path: "lorebook/index.md" } }),
    1000,
    "the second client",
  );
  expect(bombDone).toBe(false);
  expect(textOf(read)).toContain("Lorebook");
  const r = await bomb;
  expect(r.isError).toBe(true);
  expect(errorOf(r).code).toBe("timeout");
  expect(textOf(await world(a, "return 'after'"))).toBe("after");
}

/** Make the project's calendar a custom one whose format and parse scripts never return. */
function plantCalendarBomb(): void {
  writeFileSync(
    join(m.bed.project.root, "world-engine", "calendar.yaml"),
    [
      "type: custom",
      "months: [{ name: Long, days: 400 }]",
      "script: |",
      `  function format(s, d) { return String(${BOMB}) }`,
      `  function parse(t) { return ${BOMB} }`,
      "",
    ].join("\n"),
  );
}

beforeAll(async () => {
  m = mcpBed();
  await startServer();
}, 60_000);

afterAll(async () => {
  server?.kill("SIGKILL");
  for (const c of clients) await c.close().catch(() => undefined);
  await m.close();
});

describe("a sandbox bomb cannot freeze the MCP server", () => {
  it("execute_world: the script's worker is killed at the deadline; another client is served meanwhile", async () => {
    await bombWhileAnother(`return ${BOMB}`);
  }, 60_000);

  it("a calendar.yaml script with the bomb, reached from execute_world, is killed the same way", async () => {
    plantCalendarBomb();
    await bombWhileAnother("return world.time.format(0)");
  }, 60_000);

  it("the same calendar on the main thread (a plot read formatting scene times) is killed at its 1 s limit", async () => {
    plantCalendarBomb();
    const thread = await m.bed.call("save_story_thread", {
      action: "create",
      name: "bomb-check",
      title: "B",
    });
    if (!thread.ok) throw new Error(thread.error.message);
    const threadId = (thread.details as { id: number }).id;
    const scene = await m.bed.call("save_story_scene", {
      action: "create",
      threadId,
      title: "S",
      worldAnchor: { startInstant: 86_400 },
    });
    if (!scene.ok) throw new Error(scene.error.message);

    const c = await client();
    const r = await c.callTool({ name: "get_story_scene_context", arguments: { threadId } }, undefined, {
      timeout: 60_000,
    });
    expect(r.isError).toBeFalsy();
    // The plot shows a time its calendar cannot format as null; the call itself comes back.
    expect(textOf(r)).toContain('"startInstant":86400');
    expect(textOf(r)).toContain('"startTime":null');
    const again = await within(
      c.callTool({ name: "read", arguments: { path: "lorebook/index.md" } }),
      1000,
      "the next call",
    );
    expect(textOf(again)).toContain("Lorebook");
  }, 60_000);
});
