import { constants } from "node:fs";
import { type FileHandle, lstat, mkdir, mkdtemp, open, readlink, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { truncateTail } from "../../core/truncate.js";
import { REDACTED } from "../../models/redact.js";
import type { Project } from "../../workspace/project.js";
import { defineTool } from "../define.js";
import type { ToolBinding, ToolContext } from "../types.js";
import { WORLD_DIR } from "../write-reach.js";
import { commandEnv } from "./bash-env.js";
import { spillBashOutput } from "./bash-output.js";
import { type RunOutcome, runCommand } from "./bash-run.js";
import {
  bwrapArgs,
  SANDBOX_HOME,
  SANDBOX_PATH,
  SANDBOX_PROJECT,
  type SandboxStatus,
  sandboxStatus,
  sandboxTeardown,
} from "./bash-sandbox.js";

const DEFAULT_TIMEOUT_S = 120;
const MAX_TIMEOUT_S = 600;

const Input = z
  .object({
    command: z.string().min(1),
    timeout: z
      .number()
      .positive()
      .max(MAX_TIMEOUT_S)
      .optional()
      .describe(`seconds (default ${DEFAULT_TIMEOUT_S})`),
    background: z
      .boolean()
      .optional()
      .describe("run as a job: the output comes back later as a message (end your turn, do not poll)"),
  })
  .strict();
type BashInput = z.infer<typeof Input>;

/** A binding `{ access: "readonly" }` mounts the project read-only (the writer and retrieval profiles). */
function readOnlyBinding(binding: ToolBinding): boolean {
  return binding.access === "readonly";
}

function requireProject(ctx: ToolContext): Project {
  if (!ctx.project)
    throw new NbError("unsupported", "bash runs in a project folder, and this call has no current project");
  return ctx.project;
}

/** What a bash call may do here, in a sentence for the model. */
function describeBash(binding: ToolBinding, status: SandboxStatus): string {
  const use = "Run a bash command in the project folder (grep, word counts, scripts).";
  const output = "A long output keeps its tail; read its bash-output:// locator for all of it.";
  if (!status.confined) {
    const rule = readOnlyBinding(binding)
      ? "bash cannot be confined on this machine and this profile may only read, so every call is refused: use read."
      : "bash cannot be confined on this machine, so every call needs the user's approval: prefer read, write, edit and apply_patch.";
    return `${use} ${rule} ${output}`;
  }
  const confinement = readOnlyBinding(binding)
    ? "Confined: the project read-only (not .nbook/), no network, no API keys; nothing outlives the call."
    : "Confined: writes only inside the project (not .nbook/), no network, no API keys; nothing outlives the call. Change files with write, edit or apply_patch, not the shell.";
  return `${use} ${confinement} ${output}`;
}

/** The approval preview: the command, where it runs, how long it may take and what it can reach. */
function previewText(input: BashInput, project: Project, status: SandboxStatus): string {
  const timeout = input.timeout ?? DEFAULT_TIMEOUT_S;
  const reach = status.confined
    ? "confined: it can write only inside the project (not .nbook/) and has no network"
    : `NOT confined (${status.reason}): it runs with your full access to this machine and its network`;
  const where = input.background ? "bash in the background" : "bash";
  return `$ ${input.command}\n(${where} in project ${project.name}, timeout ${timeout} s; ${reach})`;
}

/**
 * The project's `.nbook/` is covered in the sandbox, which needs a real folder there: a missing one
 * is created (else the sandbox could create it, and with it profiles), a symlink or file refused.
 */
async function ensureControlArea(project: Project): Promise<void> {
  const dir = join(project.realRoot, ".nbook");
  const st = await lstat(dir).catch(() => null);
  if (!st) await mkdir(dir);
  else if (!st.isDirectory())
    throw new NbError(
      "not_allowed",
      "The project's .nbook is not a plain folder (a symlink or a file), so bash cannot hide it; fix the project first",
    );
}

/** Run the command in bubblewrap: the project at /project, nothing else of the workspace, no network. */
async function runConfined(
  input: BashInput,
  ctx: ToolContext,
  project: Project,
  bwrap: string,
  onOutput?: (chunk: string) => void,
): Promise<RunOutcome> {
  await ensureControlArea(project);
  const writable = !readOnlyBinding(ctx.binding);
  const world = writable && ctx.worldFiles !== "readwrite" ? await openWorldFolder(project) : null;
  const args = bwrapArgs({
    workspaceRealRoot: ctx.workspace.realRoot,
    projectRealRoot: project.realRoot,
    writable,
    ...(world ? { worldReadOnlyFd: WORLD_FD } : {}),
  });
  try {
    return await runCommand({
      file: bwrap,
      args: [...args, "--info-fd", "3", "--", "bash", "-c", input.command],
      cwd: "/",
      env: commandEnv({ path: SANDBOX_PATH, home: SANDBOX_HOME, projectRoot: SANDBOX_PROJECT }),
      timeoutMs: (input.timeout ?? DEFAULT_TIMEOUT_S) * 1000,
      signal: ctx.signal,
      onOutput,
      onInfo: sandboxTeardown,
      ...(world ? { passFds: [world.fd] } : {}),
    });
  } finally {
    await world?.close();
  }
}

/**
 * The key variables to mask in the output. Loaded when a command runs: the files group (which a
 * plain `nbook tool read` loads) stays free of the model and web configuration code.
 */
async function keyVariables(ctx: ToolContext, project: Project): Promise<Set<string>> {
  const { apiKeyEnvNames } = await import("../../models/key-env.js");
  return apiKeyEnvNames({ workspaceRoot: ctx.workspace.root, projectRoot: project.root });
}

/** Where the sandbox finds the `world-engine/` descriptor: the first after stdio and --info-fd's pipe. */
const WORLD_FD = 4;

/**
 * The project's `world-engine/` folder, opened for a read-only mount: created when missing (a
 * project has one), and refused when it is a link or not a folder, so the mount can never show
 * anything but the project's own folder.
 */
async function openWorldFolder(project: Project): Promise<FileHandle> {
  const dir = join(project.realRoot, WORLD_DIR);
  await mkdir(dir).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== "EEXIST") throw e;
  });
  const refused = new NbError(
    "not_allowed",
    `The project's ${WORLD_DIR} is not a plain folder (a link or a file), so bash cannot keep it read-only for this profile; fix the project first`,
  );
  const folder = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW).catch(
    () => {
      throw refused;
    },
  );
  if ((await readlink(`/proc/self/fd/${folder.fd}`).catch(() => dir)) !== dir) {
    await folder.close();
    throw refused;
  }
  return folder;
}

/** Run the command as this process's user (only ever after the user approved this one call). */
async function runUnconfined(
  input: BashInput,
  ctx: ToolContext,
  project: Project,
  onOutput?: (chunk: string) => void,
): Promise<RunOutcome> {
  const home = await mkdtemp(join(tmpdir(), "nbook-bash-home-"));
  try {
    return await runCommand({
      file: "bash",
      args: ["-c", input.command],
      cwd: project.root,
      env: commandEnv({ path: process.env.PATH ?? SANDBOX_PATH, home, projectRoot: project.root }),
      timeoutMs: (input.timeout ?? DEFAULT_TIMEOUT_S) * 1000,
      signal: ctx.signal,
      onOutput,
    });
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

// Shorter values are no real keys, and masking them would garble ordinary output.
const MIN_MASKED_KEY = 8;

/**
 * Mask the API keys this process holds in a command's output. A command's environment has none,
 * and a confined one cannot see this process; this is defence in depth (a key in a project file,
 * an approved unconfined call).
 */
function maskKeys(output: string, keyNames: ReadonlySet<string>): string {
  let out = output;
  for (const name of keyNames) {
    const key = process.env[name];
    if (key && key.length >= MIN_MASKED_KEY) out = out.split(key).join(REDACTED);
  }
  return out;
}

export const bashTool = defineTool({
  key: "bash",
  group: "files",
  description: `Run a bash command in the project folder, confined by bubblewrap (the project writable except .nbook/, nothing else of the workspace, no network, no API keys); where bubblewrap is unavailable every call needs the user's approval. Default timeout ${DEFAULT_TIMEOUT_S}s.`,
  describe: (binding) => describeBash(binding, sandboxStatus()),
  input: Input,
  effect: "per-call",
  prepare(input, ctx) {
    const project = requireProject(ctx);
    const status = sandboxStatus();
    const readOnly = readOnlyBinding(ctx.binding);
    if (readOnly && !status.confined)
      throw new NbError(
        "unsupported",
        `This profile may only read, and bash cannot be confined on this machine (${status.reason}); use read instead`,
      );
    return {
      // A confined read-only binding cannot write; anything else may, and read-only modes ask first.
      effect: readOnly ? "read" : "write",
      targets: null,
      // Unconfined, a command could do anything this process can: the user approves each one.
      ...(status.confined ? {} : { askAlways: "unconfined" as const }),
      preview: () => ({
        text: previewText(input, project, status),
        details: {
          command: input.command,
          project: project.name,
          timeout: input.timeout ?? DEFAULT_TIMEOUT_S,
          confined: status.confined,
        },
      }),
      async run(grant) {
        const approved = grant.approval !== undefined;
        // The gate asks for an unconfined call first; this holds for any caller that skips it.
        if (!status.confined && (readOnly || !approved))
          throw new NbError(
            "approval_required",
            `bash is not confined here (${status.reason}); approve the call`,
          );
        const r = input.background
          ? startBackground(input, ctx, readOnly || !approved)
          : await runBash(input, ctx, project, status);
        return { ...r, change: { targets: null, summary: `$ ${oneLine(input.command)}` } };
      },
    };
  },
});

/** A command on one line, for titles and records. */
function oneLine(command: string): string {
  return command.replace(/\s+/g, " ").trim();
}

/**
 * Start the command as a job of the calling session: the same checks already passed (mode gate,
 * approval, read-only binding), and it runs through the same sandbox with the job's signal, so a
 * cancel kills it with everything it started.
 */
function startBackground(input: BashInput, ctx: ToolContext, needsApproval: boolean) {
  const jobs = ctx.session?.services.jobs;
  if (!ctx.session || !jobs) {
    throw new NbError(
      "unsupported",
      "background: true works only inside an agent session (it needs a session for the result to flow back to); run the command without it",
    );
  }
  const project = requireProject(ctx);
  const line = oneLine(input.command);
  const job = jobs.start({
    kind: "bash",
    title: `bash: ${line.length > 60 ? `${line.slice(0, 59)}…` : line}`,
    ownerSessionId: ctx.session.id,
    originCallId: ctx.session.callId,
    ref: { command: input.command, project: project.name },
    run: async (job) => {
      const keyNames = await keyVariables(ctx, project);
      let tail = "";
      const onOutput = (chunk: string) => {
        tail = (tail + chunk).slice(-PROGRESS_TAIL);
        job.progress(maskKeys(tail, keyNames));
      };
      // Checked again when it starts: a queued job must not outlive a sandbox that broke meanwhile.
      const status = sandboxStatus();
      if (!status.confined && needsApproval)
        throw new NbError("approval_required", `bash is not confined here (${status.reason})`);
      const r = await runBash(input, { ...ctx, signal: job.signal }, project, status, onOutput);
      return { text: `$ ${input.command}\n${r.text}`, data: r.details };
    },
  });
  return {
    text: `Started background job ${job.id} (bash: ${line}). Its output comes back to you as a later message when it ends; end this turn now and do not poll with get_job.`,
    details: { jobId: job.id, status: "started", background: true, command: input.command },
  };
}

// How much of the latest output a background job keeps as its progress line.
const PROGRESS_TAIL = 300;

/** Run one command (confined, or unconfined once approved) and shape its output for the model. */
async function runBash(
  input: BashInput,
  ctx: ToolContext,
  project: Project,
  status: SandboxStatus,
  onOutput?: (chunk: string) => void,
) {
  const timeoutS = input.timeout ?? DEFAULT_TIMEOUT_S;
  const keyNames = await keyVariables(ctx, project);
  const run = status.confined
    ? await runConfined(input, ctx, project, status.bwrap, onOutput)
    : await runUnconfined(input, ctx, project, onOutput);
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
    confined: status.confined,
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
  const exit = r.exitCode === 0 ? "" : `\n[Exit code ${r.exitCode ?? `signal ${r.signal}`}]`;
  return { text: text + exit, details };
}
