// `nbook mcp` start-up against the reference filesystem MCP server, side by side: each started as a
// child process over stdio, sent `initialize` then `tools/list`, timed until the list arrives.
// Rounds alternate A and B so that a machine's drift hits both alike.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureBuilt } from "../../scripts/build.mjs";
import { Workspace } from "../../src/workspace/workspace.js";
import { type BenchOptions, type BenchSuite, intOption } from "../lib.js";

type Report = Parameters<BenchSuite["run"]>[0];

const BIN = fileURLToPath(new URL("../../bin/nbook", import.meta.url));
/** The built CLI without bin/nbook's up-to-date check, to show what that check costs. */
const DIST_ENTRY = `import { main } from ${JSON.stringify(new URL("../../dist/cli/main.js", import.meta.url).href)}; await main(process.argv);`;
const FS_SERVER = createRequire(import.meta.url).resolve(
  "@modelcontextprotocol/server-filesystem/dist/index.js",
);

const line = (o: unknown) => `${JSON.stringify(o)}\n`;
const INITIALIZE = line({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
});
const AFTER_INIT =
  line({ jsonrpc: "2.0", method: "notifications/initialized" }) +
  line({ jsonrpc: "2.0", id: 2, method: "tools/list" });

/**
 * Wall time from spawn until the server's `tools/list` answer arrives (it must list at least one
 * tool); the process is then ended by closing its stdin, and the promise settles once it has exited.
 */
export function timeHandshake(argv: string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, argv, { cwd, stdio: ["pipe", "pipe", "pipe"] });
    let buf = "";
    let err = "";
    let ms: number | undefined;
    const fail = (why: string) => {
      child.kill("SIGKILL");
      reject(new Error(`${argv.join(" ")}: ${why}\n${err.slice(-2000)}`));
    };
    child.stderr.on("data", (d) => {
      err += d;
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (ms === undefined)
        reject(new Error(`${argv.join(" ")} exited ${code} before listing tools\n${err}`));
      else resolve(ms);
    });
    child.stdout.on("data", (d) => {
      buf += d;
      let nl = buf.indexOf("\n");
      while (nl >= 0 && ms === undefined) {
        const msg = JSON.parse(buf.slice(0, nl)) as {
          id?: number;
          result?: { tools?: unknown[] };
          error?: unknown;
        };
        buf = buf.slice(nl + 1);
        if (msg.error) return fail(`error ${JSON.stringify(msg.error)}`);
        if (msg.id === 1) child.stdin.write(AFTER_INIT);
        else if (msg.id === 2) {
          if (!msg.result?.tools?.length) return fail("tools/list listed no tools");
          ms = Number(process.hrtime.bigint() - t0) / 1e6;
          child.stdin.end();
          // A server that does not exit when its stdin closes is ended; the time is already taken.
          setTimeout(() => child.kill(), 2000).unref();
        }
        nl = buf.indexOf("\n");
      }
    });
    child.stdin.write(INITIALIZE);
  });
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

/** The MCP start-up figures: nbook (through bin/nbook and straight from dist/) against the filesystem server. */
export async function mcpScale(report: Report, options?: BenchOptions): Promise<void> {
  const rounds = intOption(options, "mcp-rounds", 21);
  await ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), "nbook-bench-scale-mcp-"));
  try {
    const ws = Workspace.init(join(dir, "ws"));
    const project = ws.createProject("bench", { sample: true });
    writeFileSync(join(project.root, "lorebook", "small.md"), "The bell rang twice.\n");
    ws.close();
    const distEntry = join(dir, "nbook-dist.mjs");
    writeFileSync(distEntry, DIST_ENTRY);
    const mcpArgs = ["mcp", "--workspace", ws.root, "--project", "bench"];
    const listingCache = join(ws.cacheDir, "mcp-tools");
    // nbook answers tools/list from a listing kept per build; its first start after a build (the
    // cache emptied before each run) describes every tool from the tools' code.
    const contenders: Record<string, { argv: string[]; before?: () => void }> = {
      nbook: { argv: [BIN, ...mcpArgs] },
      nbook_dist: { argv: [distEntry, ...mcpArgs] },
      nbook_first_after_build: {
        argv: [distEntry, ...mcpArgs],
        before: () => rmSync(listingCache, { recursive: true, force: true }),
      },
      filesystem: { argv: [FS_SERVER, project.root] },
    };
    const names = Object.keys(contenders);
    const times = new Map(names.map((n) => [n, [] as number[]]));
    const run = (n: string) => {
      contenders[n]!.before?.();
      return timeHandshake(contenders[n]!.argv, dir);
    };
    for (const n of names) await run(n);
    for (let i = 0; i < rounds; i++) {
      for (const n of names) times.get(n)!.push(await run(n));
    }
    const peer = median(times.get("filesystem")!);
    report({ name: "mcp_filesystem_startup_median", unit: "ms", value: peer });
    for (const n of names.filter((x) => x !== "filesystem")) {
      const ours = median(times.get(n)!);
      report({ name: `mcp_${n}_startup_median`, unit: "ms", value: ours });
      report({
        name: `mcp_${n}_startup_vs_filesystem`,
        unit: "x",
        value: ours / peer,
        target: n === "nbook" ? "≤ 1.5" : undefined,
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
