import type { Command } from "commander";
import { NbError } from "../../core/errors.js";
import type { HarnessEvent, PendingView } from "../../harness/events.js";
import type { Harness } from "../../harness/loop.js";
import { SessionStore } from "../../harness/store/index.js";
import type { RunResult } from "../../harness/types.js";
import type { Job } from "../../jobs/store.js";
import { modelCallsRecorded, openHarness } from "../../runtime/open.js";
import { formatTasks } from "../../tasks/list.js";
import { Workspace } from "../../workspace/workspace.js";
import { jobEndedLine } from "../chat-jobs.js";
import { parseMode, readJsonArgument } from "../input.js";
import { EXIT, printJson, reportCliError, writeErr, writeOut } from "../output.js";

/** Options shared by the agent commands (run, approve, chat). */
export interface AgentCliOptions {
  workspace?: string;
  project?: string;
  profile?: string;
  mode?: string;
  model?: string;
  script?: string;
  session?: string;
  json?: boolean;
  initial?: string;
}

/** Open the workspace, project and harness for an agent command; a `--script` resumes where the session left off. */
export function openAgentCli(o: AgentCliOptions): {
  harness: Harness;
  workspace: Workspace;
  project: string | null;
} {
  const workspace = Workspace.discover({ workspace: o.workspace });
  let projectName = o.project ?? workspace.projectAt(process.cwd());
  let start = 0;
  if (o.session) {
    const store = SessionStore.forWorkspace(workspace);
    try {
      const s = store.session(o.session);
      projectName = s.project;
      start = modelCallsRecorded(store, o.session);
    } finally {
      store.close();
    }
  }
  const project = projectName ? workspace.project(projectName) : null;
  const harness = openHarness({ workspace, project, script: o.script, scriptStart: start });
  return { harness, workspace, project: project?.name ?? null };
}

/**
 * Check `--mode`, then open the agent command's harness with a way to start a new session from
 * `--profile`, `--mode` and `--model` (run and chat).
 */
export function openAgentSessions(o: AgentCliOptions): { harness: Harness; newSession: () => string } {
  const mode = parseMode(o.mode);
  const opened = openAgentCli(o);
  const harness = opened.harness;
  const newSession = () =>
    harness.createSession({
      profileKey: o.profile ?? "leader.default",
      project: opened.project,
      mode,
      model: o.model,
      initial:
        o.initial === undefined
          ? undefined
          : (readJsonArgument("--initial", o.initial) as Record<string, unknown>),
    }).id;
  return { harness, newSession };
}

/** "edit (write)", but just "switch_mode" where the kind only repeats the tool's name. */
function approvalTitle(p: PendingView): string {
  return p.kind === p.tool ? p.tool : `${p.tool} (${p.kind})`;
}

/**
 * Print the loop's events as a readable transcript: streamed text, one line per tool call, approvals,
 * tasks, and a line when a background job ends.
 */
export function attachPrinter(harness: Harness, write: (s: string) => void): () => void {
  let midLine = false;
  const line = (s: string) => {
    if (midLine) write("\n");
    midLine = false;
    write(`${s}\n`);
  };
  const starts = new Map<string, string>();
  const offJobs = harness.jobs.on((e) => {
    if (e.type === "job_ended") line(jobEndedLine(e.job));
  });
  const offBus = harness.bus.on((e: HarnessEvent) => {
    switch (e.type) {
      case "text_delta":
        write(e.text);
        midLine = !e.text.endsWith("\n");
        break;
      case "tool_call_start":
        starts.set(e.callId, e.summary);
        break;
      case "tool_call_end":
        line(`  ${e.ok ? "✓" : "✗"} ${starts.get(e.callId) ?? e.tool}${e.summary ? `  → ${e.summary}` : ""}`);
        break;
      case "approval_required":
        line(
          `\n── approval needed [${e.pending.approvalId}]: ${approvalTitle(e.pending)} ──\n${e.pending.preview}`,
        );
        break;
      case "user_input_required":
        line(`\n── question [${e.pending.approvalId}] ──\n${e.pending.preview}`);
        break;
      case "task_list_changed":
        line(formatTasks(e.tasks).replace(/^/gm, "  │ "));
        break;
      case "mode_changed":
        line(`  ⇄ mode: ${e.from} → ${e.to} (${e.by === "user" ? "by the user" : "approved request"})`);
        break;
      case "compacted":
        line(
          e.trigger === "auto"
            ? `  … the context neared the model's window: ${e.summarizedEntries} older entries were summarised (the summary is in the transcript)`
            : `  … ${e.summarizedEntries} older entries summarised`,
        );
        break;
      case "usage":
        if (e.warning) line(`  ⚠ budget: ${e.warning}`);
        break;
      case "queued":
        line(`  (queued as ${e.queue})`);
        break;
      case "error":
        line(`error [${e.error.code}]: ${e.error.message}`);
        break;
      case "run_end":
        if (midLine) line("");
        break;
      default:
        break;
    }
  });
  return () => {
    offJobs();
    offBus();
  };
}

/**
 * Print a run's outcome (one JSON object with --json) and set the exit status. `before` says what
 * already happened for good (an approval settled), for a run that then stopped early.
 */
function reportRun(r: RunResult, json: boolean | undefined, before?: string, jobs: Job[] = []): void {
  // A run that stopped early (error, abort, step limit) left the session consistent: it can go on.
  const resume =
    r.status === "error" || r.status === "aborted" || r.status === "step_limit" || r.status === "budget_limit"
      ? `nbook run --session ${r.sessionId}`
      : null;
  if (json) {
    const out: Record<string, unknown> = {
      sessionId: r.sessionId,
      status: r.status,
      finalMessage: r.finalMessage,
      data: r.data ?? null,
    };
    if (r.pending) {
      out.approvalId = r.pending.approvalId;
      out.pending = r.pending;
    }
    if (r.error) out.error = r.error;
    if (resume) out.resume = resume;
    if (jobs.length)
      out.jobs = jobs.map((j) => ({ jobId: j.id, kind: j.kind, title: j.title, status: j.status }));
    printJson(out);
  } else if (r.status === "waiting" && r.pending) {
    const how =
      r.pending.kind === "user_input"
        ? `nbook approve ${r.sessionId} ${r.pending.approvalId} --answer "<your answer>"`
        : `nbook approve ${r.sessionId} ${r.pending.approvalId} [--reject --reason "…"]`;
    writeOut(`\nSession ${r.sessionId} is waiting. Settle it with:\n  ${how}\n`);
  } else if (resume) {
    writeOut(
      `\n${before ? `${before} ` : ""}Session ${r.sessionId}: the run ended with status ${r.status}. It can go on: ${resume}\n`,
    );
  } else if (r.status === "queued") {
    // A new harness runs nothing yet: the session is another process's run, which takes the queue.
    writeOut(
      `\nSession ${r.sessionId} is running in another nbook process; your message waits in its queue, and that run takes it when it completes (or the session's next run does).\n`,
    );
  } else if (r.status !== "completed") {
    writeOut(`\nSession ${r.sessionId}: run ended with status ${r.status}.\n`);
  } else {
    writeOut(`\n(session ${r.sessionId}; continue with --session ${r.sessionId})\n`);
  }
  process.exitCode =
    r.status === "completed" || r.status === "waiting" || r.status === "queued" ? EXIT.ok : EXIT.toolError;
}

/**
 * Drive one non-interactive run of `sessionId` (run, approve): print its transcript unless --json,
 * let Ctrl-C abort it, wait for the background jobs it started and run their flow-back turns here,
 * then report the outcome (of the last turn).
 */
export async function runAndReport(
  harness: Harness,
  sessionId: string,
  json: boolean | undefined,
  start: () => Promise<RunResult>,
  before?: string,
): Promise<void> {
  const write = (s: string) => writeOut(s);
  if (!json) attachPrinter(harness, write);
  const started: string[] = [];
  const offJobs = harness.jobs.on((e) => {
    if (e.type === "job_started" && e.job.ownerSessionId === sessionId) started.push(e.job.id);
  });
  const release = abortOnSigint(harness, () => sessionId);
  try {
    const result = await awaitJobs(harness, sessionId, await start());
    reportRun(
      result,
      json,
      before,
      started.map((id) => harness.store.jobs.get(id)),
    );
  } finally {
    offJobs();
    release();
  }
}

/**
 * Jobs run inside the process that started them, so `nbook run` does not leave while the session
 * has jobs running here or a flow-back waiting for its turn: it says so on stderr and waits, and
 * each flow-back turn runs here. A session waiting on the user keeps its flow-back queued for its
 * next run. Returns the result of the last run.
 */
async function awaitJobs(harness: Harness, sessionId: string, first: RunResult): Promise<RunResult> {
  let result = first;
  let said = "";
  for (;;) {
    const flowBack = harness.flowBackRun(sessionId);
    if (flowBack) {
      result = await flowBack;
      continue;
    }
    const running = harness.jobs.activeCount(sessionId);
    if (running === 0) {
      const next = harness.store.jobs.undelivered(sessionId).length ? harness.runQueued(sessionId) : null;
      if (!next) return result;
      result = await next;
      continue;
    }
    const line = `Waiting for ${running} background job${running > 1 ? "s" : ""} of session ${sessionId} to end; the result comes back to the session here (Ctrl-C stops the jobs and exits).`;
    if (line !== said) writeErr(`${line}\n`);
    said = line;
    let off = () => {};
    await Promise.race([
      new Promise<void>((resolve) => {
        off = harness.jobs.on((e) => {
          if (e.type === "job_ended" && e.job.ownerSessionId === sessionId) resolve();
        });
      }),
      harness.jobs.whenIdle(sessionId),
    ]);
    off();
  }
}

/** Abort the session's run on Ctrl-C (a second Ctrl-C exits). */
function abortOnSigint(harness: Harness, sessionId: () => string | null): () => void {
  let pressed = false;
  const handler = () => {
    const id = sessionId();
    if (pressed || !id || !harness.isRunning(id)) {
      // Background jobs are stopped (killed with their sandboxes) and recorded as interrupted first.
      harness.close();
      process.exit(130);
    }
    pressed = true;
    writeErr("\n(aborting the run; Ctrl-C again to exit)\n");
    harness.abort(id);
  };
  process.on("SIGINT", handler);
  return () => process.off("SIGINT", handler);
}

/** `nbook run "<message>"`: one non-interactive invocation. */
export function registerRun(program: Command): void {
  program
    .command("run")
    .description(
      "Run an agent once on a message (a new session, or --session N); --session N alone continues it",
    )
    .argument("[message]", "what to ask (without it, --session N continues that session where it stopped)")
    .option("--profile <key>", "agent profile for a new session", "leader.default")
    .option("--mode <mode>", "normal, discuss or plan, for a new session (default: normal)")
    .option(
      "--model <ref>",
      "model <providerId>/<modelId>: a new session pins it; with --session, it is used for this invocation only",
    )
    .option("--script <file>", "use a scripted model file (offline; no config needed)")
    .option(
      "--initial <json>",
      "the new session's initial object (JSON or @file), for profiles that need one",
    )
    .option("--session <id>", "continue this session instead of starting one")
    .option("--project <name>", "project (default: the project folder you are in)")
    .option("--workspace <dir>", "workspace root")
    .option("--json", "print one JSON object at the end: {sessionId, status, finalMessage, data}")
    .action(async (message: string | undefined, o: AgentCliOptions) => {
      let harness: Harness | null = null;
      try {
        if (message === undefined && !o.session) {
          throw new NbError("invalid_input", "Give a message, or --session N to continue that session");
        }
        const opened = openAgentSessions(o);
        harness = opened.harness;
        const h = harness;
        const session = o.session ?? opened.newSession();
        await runAndReport(h, session, o.json, () =>
          h.invoke(
            session,
            message === undefined
              ? { mode: "continue", model: o.model }
              : { mode: "prompt", message, model: o.model },
          ),
        );
      } catch (e) {
        reportCliError(e, o.json);
      } finally {
        harness?.close();
      }
    });
}
