import { execFile } from "node:child_process";
import { NbError } from "../core/errors.js";

/** What to tell a user whose machine has no `git`: the package that provides it. */
export const GIT_MISSING =
  "git is not installed, so changes are not recorded in the history (writes still work). " +
  "Install the package `git` (Debian/Ubuntu: apt install git; macOS: brew install git).";

/** The identity every history commit carries: who made a change is in the change index, not here. */
export const IDENTITY = { name: "NeuroBook", email: "nbook@localhost" };

/**
 * Settings of every run, given on the command line rather than written to the repository's config
 * (no git runs to set them up): hooks off, bytes kept as they are, the untracked cache that keeps a
 * whole-project scan cheap, no automatic gc (prune runs it), no signing.
 */
const SETTINGS = [
  "core.hooksPath=/dev/null",
  "core.autocrlf=false",
  "core.quotePath=false",
  "core.fsmonitor=false",
  "core.untrackedCache=true",
  "gc.auto=0",
  "commit.gpgSign=false",
];

/** Large enough for the blame of a long chapter or the diff of a large change. */
const MAX_OUTPUT = 256 * 1024 * 1024;

/**
 * The environment git runs in: the parent's, without any GIT_* variable (a GIT_DIR or GIT_INDEX_FILE
 * of the user's would point it at their repository), with no system or global configuration.
 */
function scrubbedEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("GIT_")) env[k] = v;
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_AUTHOR_NAME: IDENTITY.name,
    GIT_AUTHOR_EMAIL: IDENTITY.email,
    GIT_COMMITTER_NAME: IDENTITY.name,
    GIT_COMMITTER_EMAIL: IDENTITY.email,
    GIT_TERMINAL_PROMPT: "0",
    LC_ALL: "C",
  };
}

/** The output of one git run. */
export interface GitOutput {
  stdout: Buffer;
  stderr: string;
  /** The exit status (0 unless `okCodes` allowed another). */
  code: number;
}

export interface GitRunOptions {
  input?: string | Buffer;
  /** Exit statuses that are answers, not failures (`diff --quiet` exits 1 for "differs"). */
  okCodes?: readonly number[];
  /** Another work tree (a merge in a temporary folder). */
  cwd?: string;
}

/**
 * NeuroBook's own repository of one project: `--git-dir=<project>/.nbook/history.git` with the
 * project as work tree, run through execFile (no shell) with hooks off.
 */
export class GitRepo {
  constructor(
    readonly gitDir: string,
    readonly workTree: string,
  ) {}

  /** Run git with these arguments; a missing git or a failing run throws NbError. */
  run(args: readonly string[], opts: GitRunOptions = {}): Promise<GitOutput> {
    const full = [
      `--git-dir=${this.gitDir}`,
      `--work-tree=${this.workTree}`,
      ...SETTINGS.flatMap((s) => ["-c", s]),
      ...args,
    ];
    return runGit(full, { ...opts, cwd: opts.cwd ?? this.workTree });
  }

  /** The trimmed text output of a run. */
  async text(args: readonly string[], opts: GitRunOptions = {}): Promise<string> {
    return (await this.run(args, opts)).stdout.toString("utf8").trim();
  }
}

/** Run the git binary (no repository implied). */
export function runGit(args: readonly string[], opts: GitRunOptions = {}): Promise<GitOutput> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      "git",
      args as string[],
      { cwd: opts.cwd, env: scrubbedEnv(), encoding: "buffer", maxBuffer: MAX_OUTPUT },
      (err, stdout, stderr) => {
        const errText = stderr.toString("utf8");
        if (!err) return resolve({ stdout, stderr: errText, code: 0 });
        const e = err as NodeJS.ErrnoException & { code?: unknown };
        if (e.code === "ENOENT") return reject(new NbError("unsupported", GIT_MISSING));
        const status = typeof e.code === "number" ? e.code : -1;
        if (opts.okCodes?.includes(status)) return resolve({ stdout, stderr: errText, code: status });
        reject(
          new NbError(
            "io_error",
            `git ${args.find((a) => !a.startsWith("-")) ?? ""} failed: ${firstLine(errText)}`,
          ),
        );
      },
    );
    // A git that exits before reading its input (a refused path) closes the pipe: that EPIPE is
    // not the run's error, which the exit status and stderr above report.
    child.stdin?.on("error", () => {});
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    else child.stdin?.end();
  });
}

function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim() !== "") ?? "";
  return line.trim() || "(no message)";
}
