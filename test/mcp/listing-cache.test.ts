import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpTools } from "../../src/mcp/tools.js";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { BIN, type McpBed, mcpBed } from "./fixture.js";

// A module hook that logs every ES module the server loads, to see which tool groups a start loads.
const HOOKS = `import { appendFileSync } from "node:fs";
let log;
export function initialize(data) { log = data.log; }
export async function load(url, context, next) {
  appendFileSync(log, url + "\\n");
  return next(url, context);
}
`;
const REGISTER = `import { register } from "node:module";
register("./hooks.mjs", import.meta.url, { data: { log: process.env.NBOOK_TEST_LOAD_LOG } });
`;

interface Answer {
  id?: number;
  result?: { tools?: { name: string }[]; content?: { text: string }[]; isError?: boolean };
}

let m: McpBed;
let hooks: string;
beforeAll(() => {
  m = mcpBed();
  hooks = mkdtempSync(join(tmpdir(), "nbook-mcp-listing-"));
  writeFileSync(join(hooks, "hooks.mjs"), HOOKS);
  writeFileSync(join(hooks, "register.mjs"), REGISTER);
  writeFileSync(join(m.bed.project.root, "lorebook", "bell.md"), "The bell rang twice.\n");
});
afterAll(async () => {
  await m.close();
  rmSync(hooks, { recursive: true, force: true });
});

/**
 * Start `nbook mcp` as the writer, send initialize, tools/list and then `calls` (tools/call
 * requests), one after another; every answer by id, and the URLs of the modules loaded.
 */
function session(calls: { name: string; arguments: unknown }[] = []) {
  const log = join(hooks, `loaded-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(log, "");
  const child = spawn(
    process.execPath,
    [
      "--import",
      pathToFileURL(join(hooks, "register.mjs")).href,
      BIN,
      ...["mcp", "--workspace", m.bed.ws.root, "--project", "demo", "--profile", "writer"],
    ],
    { env: { ...process.env, NBOOK_TEST_LOAD_LOG: log }, stdio: ["pipe", "pipe", "ignore"] },
  );
  const send = (o: unknown) => child.stdin.write(`${JSON.stringify(o)}\n`);
  const requests = [
    { method: "tools/list" },
    ...calls.map((params) => ({ method: "tools/call", params })),
  ].map((r, i) => ({ jsonrpc: "2.0", id: i + 2, ...r }));
  const answers = new Map<number, Answer>();
  let buf = "";
  return new Promise<{ answers: Map<number, Answer>; loaded: string[] }>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", () =>
      resolve({ answers, loaded: readFileSync(log, "utf8").split("\n").filter(Boolean) }),
    );
    child.stdout.on("data", (d) => {
      buf += d;
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        const a = JSON.parse(buf.slice(0, nl)) as Answer;
        buf = buf.slice(nl + 1);
        if (a.id === undefined) continue;
        answers.set(a.id, a);
        if (a.id === 1) send({ jsonrpc: "2.0", method: "notifications/initialized" });
        const next = requests[a.id - 1];
        if (next) send(next);
        else child.stdin.end();
      }
    });
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
  });
}

/** The tool groups whose code a process loaded (each through its index module). */
const groupsIn = (loaded: string[]) =>
  new Set(loaded.map((u) => /\/dist\/tools\/([^/]+)\/index\.js$/.exec(u)?.[1]).filter(Boolean));

const cacheDir = () => join(m.bed.ws.root, ".nbook", "cache", "mcp-tools");

describe("nbook mcp's tool listing, kept per build", () => {
  it("answers tools/list without loading any tool's code once cached, exactly as the tools describe themselves", async () => {
    rmSync(cacheDir(), { recursive: true, force: true });
    const first = await session();
    // The first start after a build describes the tools from their code and keeps the listing.
    expect(groupsIn(first.loaded).size).toBeGreaterThan(0);
    expect(readdirSync(cacheDir()).filter((f) => f.endsWith(".json"))).toHaveLength(1);
    const second = await session();
    expect(groupsIn(second.loaded)).toEqual(new Set());
    expect(second.loaded.some((u) => /\/quickjs-emscripten\//.test(u))).toBe(false);
    const live = mcpTools(createToolRegistry(), m.bed.catalog, "writer");
    expect(second.answers.get(2)?.result?.tools).toEqual(live);
    expect(first.answers.get(2)?.result?.tools).toEqual(live);
  });

  it("loads a group's code at its first call, and only that group", async () => {
    const r = await session([{ name: "read", arguments: { path: "lorebook/bell.md" } }]);
    expect(r.answers.get(3)?.result?.content?.[0]?.text).toContain("The bell rang twice.");
    expect(groupsIn(r.loaded)).toEqual(new Set(["files"]));
  });

  it("describes the tools anew over a cached listing that does not parse, and drops other builds' listings", async () => {
    const [file] = readdirSync(cacheDir()).filter((f) => f.endsWith(".json"));
    writeFileSync(join(cacheDir(), file!), '[{"name": 1}]');
    mkdirSync(cacheDir(), { recursive: true });
    writeFileSync(join(cacheDir(), "0000-old-build.json"), "[]");
    const r = await session();
    expect(r.answers.get(2)?.result?.tools).toEqual(mcpTools(createToolRegistry(), m.bed.catalog, "writer"));
    expect(groupsIn(r.loaded).size).toBeGreaterThan(0);
    expect(readdirSync(cacheDir()).filter((f) => f.endsWith(".json"))).toEqual([file]);
    expect(JSON.parse(readFileSync(join(cacheDir(), file!), "utf8"))).toHaveLength(
      r.answers.get(2)!.result!.tools!.length,
    );
  });
});
