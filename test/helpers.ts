import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "../src/cli/main.js";
import type { Mode } from "../src/core/modes.js";
import { ProfileCatalog } from "../src/profiles/catalog.js";
import { createToolRegistry } from "../src/tools/builtin.js";
import { type DispatchContext, dispatch } from "../src/tools/dispatch.js";
import type { Project } from "../src/workspace/project.js";
import { type CreateProjectOptions, Workspace } from "../src/workspace/workspace.js";

/** The CLI entry point every CLI test spawns; it runs the compiled dist/, which test/global-setup.ts builds. */
export const NBOOK_BIN = fileURLToPath(new URL("../bin/nbook", import.meta.url));

/** A throw-away workspace with one project, and a dispatch bound to it. */
export interface TestBed {
  dir: string;
  ws: Workspace;
  project: Project;
  catalog: ProfileCatalog;
  /** Run a tool through the full dispatch, as `profile` (or a trusted user) in `mode`. */
  call(
    key: string,
    input: unknown,
    opts?: {
      profile?: string;
      mode?: Mode;
      approved?: boolean;
      /** Settle the call as approved against this preview basis. */
      approvedBasis?: unknown;
      project?: Project | null;
    },
  ): ReturnType<typeof dispatch>;
  cleanup(): void;
}

/** Create a workspace in a temp folder with a project named `name`. */
export function makeTestBed(name = "novel", opts: CreateProjectOptions = {}): TestBed {
  const dir = mkdtempSync(join(tmpdir(), "nbook-test-"));
  const ws = Workspace.init(join(dir, "ws"));
  const project = ws.createProject(name, opts);
  const registry = createToolRegistry();
  const catalog = new ProfileCatalog(registry, ws, project);
  return {
    dir,
    ws,
    project,
    catalog,
    call(key, input, o = {}) {
      const dctx: DispatchContext = {
        registry,
        workspace: ws,
        project: o.project === undefined ? project : o.project,
        mode: o.mode ?? "normal",
        profileKey: o.profile ?? null,
        allow: o.profile ? catalog.allowlist(o.profile) : "all",
        approved: o.approved ?? o.approvedBasis !== undefined,
        ...(o.approvedBasis !== undefined ? { approvedBasis: o.approvedBasis } : {}),
      };
      return dispatch({ key, input }, dctx);
    },
    cleanup() {
      ws.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Run `./bin/nbook` synchronously in `cwd`; `env` adds to (or, with "", blanks) the process environment. */
export function runNbook(
  args: string[],
  opts: { cwd: string; env?: Record<string, string>; input?: string },
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(NBOOK_BIN, args, {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    encoding: "utf8",
    input: opts.input,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** What a CLI run printed and the exit status it set. */
export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Run `nbook` in this test process: `main()` on the sources, in `cwd`, with `env` added to (or, with
 * "", blanking) the environment, and stdout/stderr captured. The status is the exit status the
 * command set. Use it where a separate process proves nothing more; spawn ./bin/nbook (runNbook) for
 * what needs one: start-up, stdin, signals, a process exiting on its own. Stdin is not a terminal, as
 * for a spawned process given no input. Calls must not overlap.
 */
export async function runNbookInProcess(
  args: string[],
  opts: { cwd: string; env?: Record<string, string> },
): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const writeOut = process.stdout.write;
  const writeErr = process.stderr.write;
  const capture =
    (append: (s: string) => void) =>
    (chunk: string | Uint8Array, encoding?: unknown, cb?: unknown): boolean => {
      append(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
      const done = typeof encoding === "function" ? encoding : cb;
      if (typeof done === "function") done();
      return true;
    };
  const savedEnv = new Map(Object.keys(opts.env ?? {}).map((k) => [k, process.env[k]]));
  const savedCwd = process.cwd();
  const savedExitCode = process.exitCode;
  const savedIsTTY = Object.getOwnPropertyDescriptor(process.stdin, "isTTY");
  Object.defineProperty(process.stdin, "isTTY", { value: false, configurable: true, writable: true });
  // main() adds listeners a process would drop at exit; they are removed after the run.
  const stdoutErrorListeners = process.stdout.listeners("error");
  const sigint = process.listeners("SIGINT");
  process.exitCode = undefined;
  Object.assign(process.env, opts.env);
  process.chdir(opts.cwd);
  process.stdout.write = capture((s) => {
    stdout += s;
  }) as typeof process.stdout.write;
  process.stderr.write = capture((s) => {
    stderr += s;
  }) as typeof process.stderr.write;
  try {
    await main(["node", "nbook", ...args]);
    const code = process.exitCode;
    return { status: code === undefined ? 0 : Number(code), stdout, stderr };
  } finally {
    process.stdout.write = writeOut;
    process.stderr.write = writeErr;
    process.chdir(savedCwd);
    for (const [k, v] of savedEnv) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    process.exitCode = savedExitCode;
    if (savedIsTTY) Object.defineProperty(process.stdin, "isTTY", savedIsTTY);
    else delete (process.stdin as { isTTY?: boolean }).isTTY;
    for (const l of process.stdout.listeners("error"))
      if (!stdoutErrorListeners.includes(l)) process.stdout.off("error", l as (e: Error) => void);
    for (const l of process.listeners("SIGINT"))
      if (!sigint.includes(l)) process.off("SIGINT", l as NodeJS.SignalsListener);
  }
}

/**
 * CPU time (user + system, in clock ticks) of each thread of process `pid`, by thread id (Linux).
 * A test waits for a runaway script to start by watching for a thread that spins.
 */
export function threadCpuTicks(pid: number): Map<string, number> {
  const ticks = new Map<string, number>();
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return ticks; // the process has exited
  }
  for (const tid of tids) {
    try {
      // Fields after the parenthesised name: utime and stime are the 12th and 13th.
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks.set(tid, Number(fields[11]) + Number(fields[12]));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return ticks;
}
