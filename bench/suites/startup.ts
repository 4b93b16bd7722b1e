import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
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

/** A module loaded first (--import) that reports the process's CPU time (all threads) on fd 3 at exit. */
function cpuReporter(dir: string): string {
  const file = join(dir, "cpu-report.mjs");
  writeFileSync(
    file,
    `import { writeSync } from "node:fs";
process.on("exit", () => {
  const u = process.cpuUsage();
  writeSync(3, String((u.user + u.system) / 1000));
});
`,
  );
  return file;
}

/** One run: wall time from spawn until exit, and the CPU time the process used. */
interface Timing {
  wall: number;
  cpu: number;
}

/** Time one process until it exits (status 0 required); `reporter` is the cpuReporter module. */
function timeRun(argv: string[], cwd: string, reporter: string): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, ["--import", pathToFileURL(reporter).href, ...argv], {
      cwd,
      stdio: ["ignore", "ignore", "pipe", "pipe"],
    });
    let err = "";
    let cpu = "";
    child.stderr?.on("data", (d) => {
      err += d;
    });
    child.stdio[3]?.on("data", (d) => {
      cpu += d;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const wall = Number(process.hrtime.bigint() - t0) / 1e6;
      if (code === 0) resolve({ wall, cpu: Number(cpu) });
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

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

/** `runs` alternating runs of the compiled build and the tsx path (load hits both alike), after one of each. */
async function sideBySide<T>(runs: number, time: (entry: Entry) => Promise<T>, tsx: Entry) {
  await time(compiled);
  await time(tsx);
  const a: T[] = [];
  const b: T[] = [];
  for (let i = 0; i < runs; i++) {
    a.push(await time(compiled));
    b.push(await time(tsx));
  }
  return { compiled: a, tsx: b };
}

export const suite: BenchSuite = {
  name: "startup",
  description:
    "CLI start-up (wall and CPU time), compiled dist/ (bin/nbook) against the sources through tsx (baseline); --runs N (default 15)",
  async run(report, options) {
    const runs = intOption(options, "runs", 15);
    await ensureBuilt();
    const dir = mkdtempSync(join(tmpdir(), "nbook-bench-startup-"));
    const ws = Workspace.init(join(dir, "ws"));
    const project = ws.createProject("bench");
    writeFileSync(join(project.root, "lorebook", "small.md"), "The bell rang twice.\n");
    ws.close();
    const tsx = tsxEntry(dir);
    const reporter = cpuReporter(dir);
    /** Report the wall and CPU medians of one command, the tsx path as the baseline. */
    const both = (name: string, r: { compiled: Timing[]; tsx: Timing[] }, target?: string) => {
      for (const what of ["wall", "cpu"] as const) {
        const ours = median(r.compiled.map((t) => t[what]));
        const base = median(r.tsx.map((t) => t[what]));
        report({
          name: `${name}_${what}_median`,
          unit: "ms",
          value: ours,
          baseline: base,
          ratio: base / ours,
          target: what === "wall" ? target : undefined,
        });
      }
    };
    try {
      // The floor every figure stands on: Node starting and exiting with nothing to load.
      const empty: Timing[] = [];
      for (let i = 0; i < runs; i++) empty.push(await timeRun(["-e", ""], dir, reporter));
      for (const what of ["wall", "cpu"] as const) {
        report({ name: `node_empty_${what}_median`, unit: "ms", value: median(empty.map((t) => t[what])) });
      }
      both("help", await sideBySide(runs, (e) => timeRun(e(["--help"]), dir, reporter), tsx), "< 250 ms");
      const readArgs = ["tool", "read", "--input", '{"path":"lorebook/small.md"}'];
      const read = await sideBySide(runs, (e) => timeRun(e(readArgs), project.root, reporter), tsx);
      both("tool_read", read, "< 400 ms");
      const mcpArgs = ["mcp", "--workspace", ws.root, "--project", "bench"];
      const mcp = await sideBySide(runs, (e) => timeMcpInitialize(e(mcpArgs), dir), tsx);
      report({
        name: "mcp_initialize_wall_median",
        unit: "ms",
        value: median(mcp.compiled),
        baseline: median(mcp.tsx),
        ratio: median(mcp.tsx) / median(mcp.compiled),
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
