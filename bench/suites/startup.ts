import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureBuilt } from "../../scripts/build.mjs";
import { isBuildCurrent } from "../../scripts/build-stamp.mjs";
import { Workspace } from "../../src/workspace/workspace.js";
import { type BenchSuite, intOption } from "../lib.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "bin", "nbook");

/** How a command starts: the shipped entry (compiled dist/), or the sources through tsx as before. */
type Entry = (args: string[]) => string[];

/** An entry that runs src/cli/main.ts through tsx, exactly as bin/nbook did before dist/ existed. */
function tsxEntry(dir: string): Entry {
  const file = join(dir, "nbook-tsx.mjs");
  writeFileSync(
    file,
    `import { register } from ${JSON.stringify(import.meta.resolve("tsx/esm/api"))};
register();
const { main } = await import(${JSON.stringify(new URL("../../src/cli/main.ts", import.meta.url).href)});
await main(process.argv);
`,
  );
  return (args) => [file, ...args];
}

const compiled: Entry = (args) => [BIN, ...args];

/** Wall time of one process from spawn until it exits (status 0 required). */
function timeRun(argv: string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, argv, { cwd, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (d) => {
      err += d;
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0) resolve(Number(process.hrtime.bigint() - t0) / 1e6);
      else reject(new Error(`nbook ${argv.slice(1).join(" ")} exited ${code}: ${err}`));
    });
  });
}

const INITIALIZE = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
})}\n`;

/** Wall time from spawning `nbook mcp` until its answer to `initialize` arrives on stdout. */
function timeMcpInitialize(argv: string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child: ChildProcess = spawn(process.execPath, argv, { cwd, stdio: ["pipe", "pipe", "ignore"] });
    let out = "";
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`nbook mcp exited ${code} before answering initialize`)));
    child.stdout?.on("data", (d) => {
      out += d;
      if (!out.includes('"id":1')) return;
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      child.removeAllListeners("exit");
      child.once("exit", () => resolve(ms));
      child.kill();
    });
    child.stdin?.end(INITIALIZE);
  });
}

/** Medians of `runs` alternating timings of the compiled build and the tsx path (load hits both alike). */
async function sideBySide(
  runs: number,
  time: (entry: Entry) => Promise<number>,
  tsx: Entry,
): Promise<{ compiled: number; tsx: number }> {
  await time(compiled);
  await time(tsx);
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < runs; i++) {
    a.push(await time(compiled));
    b.push(await time(tsx));
  }
  const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  return { compiled: median(a), tsx: median(b) };
}

export const suite: BenchSuite = {
  name: "startup",
  description:
    "CLI start-up, compiled dist/ (bin/nbook) against the sources through tsx (baseline); --runs N (default 15)",
  async run(report, options) {
    const runs = intOption(options, "runs", 15);
    await ensureBuilt();
    const dir = mkdtempSync(join(tmpdir(), "nbook-bench-startup-"));
    const ws = Workspace.init(join(dir, "ws"));
    const project = ws.createProject("bench");
    writeFileSync(join(project.root, "lorebook", "small.md"), "The bell rang twice.\n");
    ws.close();
    const tsx = tsxEntry(dir);
    try {
      const help = await sideBySide(runs, (e) => timeRun(e(["--help"]), dir), tsx);
      report({
        name: "help_median",
        unit: "ms",
        value: help.compiled,
        baseline: help.tsx,
        ratio: help.tsx / help.compiled,
        target: "< 250 ms",
      });
      const readArgs = ["tool", "read", "--input", '{"path":"lorebook/small.md"}'];
      const read = await sideBySide(runs, (e) => timeRun(e(readArgs), project.root), tsx);
      report({
        name: "tool_read_median",
        unit: "ms",
        value: read.compiled,
        baseline: read.tsx,
        ratio: read.tsx / read.compiled,
        target: "< 400 ms",
      });
      const mcpArgs = ["mcp", "--workspace", ws.root, "--project", "bench"];
      const mcp = await sideBySide(runs, (e) => timeMcpInitialize(e(mcpArgs), dir), tsx);
      report({
        name: "mcp_initialize_median",
        unit: "ms",
        value: mcp.compiled,
        baseline: mcp.tsx,
        ratio: mcp.tsx / mcp.compiled,
      });
      if (!isBuildCurrent(ROOT)) {
        process.stderr.write(
          "startup: src/ changed during the run, so some compiled figures include a rebuild\n",
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
