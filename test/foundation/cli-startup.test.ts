import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Command, Help } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMANDS, commandNamed } from "../../src/cli/main.js";
import { makeTestBed, NBOOK_BIN, runNbook, type TestBed } from "../helpers.js";

// A module hook (ES modules as they load) and an exit dump of the CommonJS cache (modules loaded by
// require) together list every file a `nbook` process loaded.
const HOOKS = `import { appendFileSync } from "node:fs";
let log;
export function initialize(data) { log = data.log; }
export async function load(url, context, next) {
  appendFileSync(log, url + "\\n");
  return next(url, context);
}
`;
const REGISTER = `import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
const log = process.env.NBOOK_TEST_LOAD_LOG;
register("./hooks.mjs", import.meta.url, { data: { log } });
const cache = createRequire(import.meta.url).cache;
process.on("exit", () => {
  appendFileSync(log, Object.keys(cache).map((f) => pathToFileURL(f).href).join("\\n") + "\\n");
});
`;

/** Packages that only some commands need, each costing tens of milliseconds to load. */
const HEAVY = [
  "ai",
  "@ai-sdk/openai",
  "@ai-sdk/anthropic",
  "@ai-sdk/openai-compatible",
  "@modelcontextprotocol/sdk",
  "hono",
  "@hono/node-server",
  "quickjs-emscripten",
  "better-sqlite3",
  "zod",
];

let dir: string;
let bed: TestBed;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "nbook-startup-"));
  writeFileSync(join(dir, "hooks.mjs"), HOOKS);
  writeFileSync(join(dir, "register.mjs"), REGISTER);
  bed = makeTestBed("novel");
  writeFileSync(join(bed.project.root, "lorebook", "small.md"), "The bell rang twice.\n");
});
afterAll(() => {
  bed.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** Run ./bin/nbook under the hooks; its exit status, stdout and the URLs of every module it loaded. */
function traced(args: string[], cwd = dir): { status: number | null; stdout: string; loaded: string[] } {
  const log = join(dir, `loaded-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(log, "");
  const r = spawnSync(
    process.execPath,
    ["--import", pathToFileURL(join(dir, "register.mjs")).href, NBOOK_BIN, ...args],
    { cwd, env: { ...process.env, NBOOK_TEST_LOAD_LOG: log }, encoding: "utf8" },
  );
  const loaded = readFileSync(log, "utf8").split("\n").filter(Boolean);
  return { status: r.status, stdout: r.stdout, loaded };
}

const packagesIn = (loaded: string[]) =>
  new Set(loaded.map((u) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1]).filter(Boolean));

/** The tool groups whose code was loaded: each group's tools are loaded through its index module. */
const groupsIn = (loaded: string[]) =>
  new Set(loaded.map((u) => /\/dist\/tools\/([^/]+)\/index\.js$/.exec(u)?.[1]).filter(Boolean));

describe("nbook start-up", () => {
  it("--help runs the compiled build and loads no command and no heavy package", () => {
    const r = traced(["--help"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("approve [options] <sessionId> <approvalId>");
    // The hooks saw the process load: the compiled entry and commander, and no TypeScript.
    expect(r.loaded.some((u) => u.endsWith("/dist/cli/main.js"))).toBe(true);
    expect(packagesIn(r.loaded).has("commander")).toBe(true);
    expect(r.loaded.filter((u) => u.endsWith(".ts"))).toEqual([]);
    expect(r.loaded.filter((u) => u.includes("/dist/cli/commands/"))).toEqual([]);
    const heavy = HEAVY.filter((p) => packagesIn(r.loaded).has(p));
    expect(heavy).toEqual([]);
  });

  it("`tool read` loads neither the AI SDK, the MCP SDK nor Hono", () => {
    const r = traced(["tool", "read", "--input", '{"path":"lorebook/small.md"}'], bed.project.root);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("The bell rang twice.");
    const packages = packagesIn(r.loaded);
    expect(packages.has("zod")).toBe(true);
    const agentOnly = [
      "ai",
      "@ai-sdk/openai",
      "@ai-sdk/anthropic",
      "@ai-sdk/openai-compatible",
      "@modelcontextprotocol/sdk",
      "hono",
      "@hono/node-server",
    ];
    expect(agentOnly.filter((p) => packages.has(p))).toEqual([]);
    // Only the files group's code: no other tool group, no World Engine, no QuickJS.
    expect(groupsIn(r.loaded)).toEqual(new Set(["files"]));
    // Without --profile no allowlist applies, so no profile is read.
    expect(r.loaded.filter((u) => u.includes("/dist/profiles/"))).toEqual([]);
    expect(r.loaded.filter((u) => /\/dist\/(world\/sandbox|plot|research|web)\//.test(u))).toEqual([]);
    expect(packages.has("quickjs-emscripten")).toBe(false);
  });

  it("`tool execute_world` loads the world group and no other group", () => {
    const r = traced(["tool", "execute_world", "--input", '{"code":"return 1 + 1"}'], bed.project.root);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("2");
    expect(groupsIn(r.loaded)).toEqual(new Set(["world"]));
  });

  it("`mcp` over stdio loads neither Hono nor the HTTP transport", () => {
    const r = traced(["mcp", "--workspace", bed.ws.root, "--project", "novel"]);
    expect(r.status).toBe(0);
    expect(r.loaded.some((u) => u.endsWith("/dist/mcp/stdio.js"))).toBe(true);
    expect(r.loaded.filter((u) => u.endsWith("/dist/mcp/http.js"))).toEqual([]);
    const packages = packagesIn(r.loaded);
    expect(packages.has("hono")).toBe(false);
    expect(packages.has("@hono/node-server")).toBe(false);
  });

  it("`plot tree` finds its project without loading any tool's code", () => {
    const r = traced(["plot", "tree", "--workspace", bed.ws.root, "--project", "novel"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("0 acts");
    expect(r.loaded.some((u) => u.includes("/dist/plot/"))).toBe(true);
    expect(r.loaded.filter((u) => u.includes("/dist/tools/"))).toEqual([]);
  });

  it("a command's own help is complete: `run --help` and `help tool` show their options", () => {
    const run = runNbook(["run", "--help"], { cwd: dir });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("Usage: nbook run [options]");
    expect(run.stdout).toContain("--profile <key>");
    expect(run.stdout).toContain("--session <id>");
    const tool = runNbook(["help", "tool"], { cwd: dir });
    expect(tool.status).toBe(0);
    expect(tool.stdout).toContain("--input <json>");
    const phase = runNbook(["plot", "phase", "add", "--help"], { cwd: dir });
    expect(phase.stdout).toContain("Usage: nbook plot phase add");
  });

  it("an unknown command is a usage error that names the commands", () => {
    const r = runNbook(["frobnicate"], { cwd: dir });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("unknown command 'frobnicate'");
    expect(r.stderr).toContain("world");
  });
});

describe("the command table", () => {
  it("lists each command with the term and description its registration gives it", async () => {
    const help = new Help();
    for (const entry of COMMANDS) {
      const program = new Command("nbook");
      (await entry.load())(program);
      const cmd = program.commands.find((c) => c.name() === entry.name);
      expect(cmd, entry.name).toBeDefined();
      expect(help.subcommandTerm(cmd!), entry.name).toBe(entry.term);
      expect(cmd!.description(), entry.name).toBe(entry.description);
    }
  });

  it("has one entry for each command file", () => {
    const files = readdirSync(fileURLToPath(new URL("../../src/cli/commands/", import.meta.url)))
      .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
      .map((f) => f.slice(0, -3));
    expect(COMMANDS.map((c) => c.name).sort()).toEqual(files.sort());
  });

  it("finds the command an argument list runs, or asks help for", () => {
    expect(commandNamed(["node", "nbook", "tool", "read", "--input", "{}"])).toBe("tool");
    expect(commandNamed(["node", "nbook", "--help"])).toBeUndefined();
    expect(commandNamed(["node", "nbook", "help", "run"])).toBe("run");
  });
});
