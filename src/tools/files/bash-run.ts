import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { NbError } from "../../core/errors.js";

// Kept in memory per command; beyond this only the tail is kept and the spill is marked partial.
const MEMORY_CAP = 16 * 1024 * 1024;
// How long output is still read after the command itself has exited.
const PIPE_GRACE_MS = 500;
// Between SIGTERM and SIGKILL when a command is stopped.
const KILL_GRACE_MS = 250;

/** How a command ended and what it printed (stdout and stderr merged). */
export interface RunOutcome {
  output: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  partial: boolean;
}

/** One process to run: the program and its arguments, where, with which environment, for how long. */
export interface RunSpec {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Called with each piece of output as it arrives (a background job's progress). */
  onOutput?: (chunk: string) => void;
  /**
   * When set, the process gets a fourth pipe (fd 3); what it wrote there is handed to this once
   * the process has closed, and the call ends only when the returned promise does.
   */
  onInfo?: (info: string) => Promise<void>;
  /** Open descriptors the process gets from fd 4 on (with `onInfo` only, which takes fd 3). */
  passFds?: number[];
}

/** A process's state letter (R, S, T, Z, …) from /proc; null when it is gone. */
function stateOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.charAt(stat.lastIndexOf(")") + 2);
  } catch {
    return null;
  }
}

// How long a kill waits for bwrap to stop before it looks at its children.
const STOP_WAIT_MS = 100;

/**
 * Kill a sandbox through its bwrap process: stop bwrap (so it starts nothing more), kill its child —
 * the sandbox's init, in a session of its own outside this process group, whose death empties the
 * whole sandbox — then bwrap. Killing bwrap alone can orphan a sandbox it is still setting up (its
 * child may not have tied its life to bwrap's yet).
 */
function killSandbox(pid: number): void {
  try {
    process.kill(pid, "SIGSTOP");
  } catch {
    return; // gone already
  }
  const deadline = Date.now() + STOP_WAIT_MS;
  for (let st = stateOf(pid); st && !"TtZX".includes(st) && Date.now() < deadline; st = stateOf(pid)) {}
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {}
  for (const c of children) {
    try {
      process.kill(c, "SIGKILL");
    } catch {}
  }
  try {
    process.kill(pid, "SIGKILL");
  } catch {}
}

/**
 * Run a process in its own process group and collect its merged output; kill the whole group on
 * timeout, on abort, or once the process has exited (what it left behind must not hold the call).
 */
export function runCommand(spec: RunSpec): Promise<RunOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(spec.file, spec.args, {
      cwd: spec.cwd,
      detached: true,
      stdio: spec.onInfo
        ? ["ignore", "pipe", "pipe", "pipe", ...(spec.passFds ?? [])]
        : ["ignore", "pipe", "pipe"],
      env: spec.env,
    });
    const info: Buffer[] = [];
    (child.stdio[3] as NodeJS.ReadableStream | undefined)?.on("data", (b: Buffer) => info.push(b));
    const chunks: Buffer[] = [];
    let size = 0;
    let partial = false;
    const onData = (b: Buffer) => {
      spec.onOutput?.(b.toString("utf8"));
      chunks.push(b);
      size += b.length;
      while (size > MEMORY_CAP && chunks.length > 1) {
        size -= chunks.shift()!.length;
        partial = true;
      }
    };
    // Both pipes exist: stdio asks for them.
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    let timedOut = false;
    let aborted = false;
    const killGroup = () => {
      if (spec.onInfo) killSandbox(child.pid!);
      try {
        process.kill(-child.pid!, "SIGTERM");
        setTimeout(() => {
          try {
            process.kill(-child.pid!, "SIGKILL");
          } catch {}
        }, KILL_GRACE_MS).unref();
      } catch {}
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, spec.timeoutMs);
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    spec.signal?.addEventListener("abort", onAbort, { once: true });
    let leftovers: NodeJS.Timeout | undefined;
    child.on("exit", () => {
      clearTimeout(timer);
      // What the command left behind (`cmd &`, a daemon that called setsid) must not hold the
      // pipes, and with them this call, open: after a short grace its group ends and reading stops.
      leftovers = setTimeout(() => {
        killGroup();
        for (const stream of child.stdio) stream?.destroy();
      }, PIPE_GRACE_MS);
    });
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(new NbError("io_error", `Could not start ${basename(spec.file)}: ${e.message}`));
    });
    child.on("close", (code, sig) => {
      clearTimeout(timer);
      clearTimeout(leftovers);
      spec.signal?.removeEventListener("abort", onAbort);
      const outcome = {
        output: Buffer.concat(chunks).toString("utf8"),
        exitCode: code,
        signal: sig,
        timedOut,
        aborted,
        partial,
      };
      if (!spec.onInfo) return resolve(outcome);
      spec.onInfo(Buffer.concat(info).toString("utf8")).then(() => resolve(outcome), reject);
    });
  });
}
