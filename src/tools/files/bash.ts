import { spawn } from "node:child_process";
import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { apiKeyEnvNames } from "../../models/key-env.js";
import { REDACTED } from "../../models/redact.js";
import { defineTool } from "../define.js";
import { truncateTail } from "../truncate.js";
import { spillBashOutput } from "./bash-output.js";

const DEFAULT_TIMEOUT_S = 120;
const MAX_TIMEOUT_S = 600;
// Kept in memory per command; beyond this only the tail is kept and the spill is marked partial.
const MEMORY_CAP = 16 * 1024 * 1024;
// How long output is still read after bash itself has exited.
const PIPE_GRACE_MS = 500;

const Input = z
  .object({
    command: z.string().min(1).describe("A bash command line, run in the project folder"),
    timeout: z
      .number()
      .positive()
      .max(MAX_TIMEOUT_S)
      .optional()
      .describe(`Seconds before the command is killed (default ${DEFAULT_TIMEOUT_S}, max ${MAX_TIMEOUT_S})`),
  })
  .strict();

interface RunOutcome {
  output: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  partial: boolean;
}

/**
 * The command's environment: the process's own without the model providers' API keys (`keyNames`),
 * since what the command prints goes to the model and into the session record.
 */
function commandEnv(keyNames: ReadonlySet<string>, cwd: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NBOOK_PROJECT_ROOT: cwd };
  for (const name of keyNames) delete env[name];
  return env;
}

// Shorter values are no real keys, and masking them would garble ordinary output.
const MIN_MASKED_KEY = 8;

/**
 * Mask the API keys this process holds in a command's output: a trusted shell can still read one
 * elsewhere (its parent's /proc/<pid>/environ, a file), and it must not be recorded verbatim.
 */
function maskKeys(output: string, keyNames: ReadonlySet<string>): string {
  let out = output;
  for (const name of keyNames) {
    const key = process.env[name];
    if (key && key.length >= MIN_MASKED_KEY) out = out.split(key).join(REDACTED);
  }
  return out;
}

/** Run `bash -c` in its own process group; kill the whole group on timeout, abort, or once bash has exited. */
function runBash(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<RunOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", command], {
      cwd,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let partial = false;
    const onData = (b: Buffer) => {
      chunks.push(b);
      size += b.length;
      while (size > MEMORY_CAP && chunks.length > 1) {
        size -= chunks.shift()!.length;
        partial = true;
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    let timedOut = false;
    let aborted = false;
    const killGroup = () => {
      try {
        process.kill(-child.pid!, "SIGTERM");
        setTimeout(() => {
          try {
            process.kill(-child.pid!, "SIGKILL");
          } catch {}
        }, 250).unref();
      } catch {}
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    let leftovers: NodeJS.Timeout | undefined;
    child.on("exit", () => {
      clearTimeout(timer);
      // What bash left behind (`cmd &`, a daemon that called setsid) must not hold the pipes, and
      // with them this call, open: after a short grace its group ends and reading stops.
      leftovers = setTimeout(() => {
        killGroup();
        child.stdout.destroy();
        child.stderr.destroy();
      }, PIPE_GRACE_MS);
    });
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(new NbError("io_error", `Could not start bash: ${e.message}`));
    });
    child.on("close", (code, sig) => {
      clearTimeout(timer);
      clearTimeout(leftovers);
      signal?.removeEventListener("abort", onAbort);
      resolve({
        output: Buffer.concat(chunks).toString("utf8"),
        exitCode: code,
        signal: sig,
        timedOut,
        aborted,
        partial,
      });
    });
  });
}

export const bashTool = defineTool({
  key: "bash",
  group: "files",
  description: `Run a bash command in the project folder (search with rg, run scripts and builds). It is a trusted shell, not sandboxed: do not use it to write files — use write, edit or apply_patch. stdout and stderr are merged; long output keeps its tail and the full output can be read with read on the returned bash-output:// locator. Default timeout ${DEFAULT_TIMEOUT_S}s.`,
  input: Input,
  // The seed's explicit exception: a trusted shell that read-only modes do not gate.
  effect: "write",
  gate: "never",
  async execute(input, ctx) {
    const cwd = ctx.project ? ctx.project.root : ctx.workspace.root;
    const timeoutS = input.timeout ?? DEFAULT_TIMEOUT_S;
    const keyNames = apiKeyEnvNames({ workspaceRoot: ctx.workspace.root, projectRoot: ctx.project?.root });
    const run = await runBash(input.command, cwd, commandEnv(keyNames, cwd), timeoutS * 1000, ctx.signal);
    const r = { ...run, output: maskKeys(run.output, keyNames) };
    const tail = truncateTail(r.output);
    let locator: string | undefined;
    let text = r.output === "" ? "(no output)" : tail.text;
    if (tail.truncated || r.partial) {
      locator = await spillBashOutput(ctx.workspace, r.output);
      const first = tail.totalLines - tail.keptLines + 1;
      text += `\n[Showing lines ${first}-${tail.totalLines} of ${tail.totalLines}${r.partial ? " (earliest output dropped beyond 16 MiB)" : ""}. Full output: ${locator}]`;
    }
    const details = {
      exitCode: r.exitCode,
      signal: r.signal,
      timedOut: r.timedOut,
      ...(locator ? { fullOutput: locator } : {}),
    };
    if (r.timedOut) {
      throw new NbError(
        "timeout",
        `${text}\n[Command timed out after ${timeoutS} s; its process group was killed]`,
        { details },
      );
    }
    if (r.aborted) throw new NbError("aborted", `${text}\n[Command aborted]`, { details });
    const status = r.exitCode === 0 ? "" : `\n[Exit code ${r.exitCode ?? `signal ${r.signal}`}]`;
    return { text: text + status, details };
  },
});
