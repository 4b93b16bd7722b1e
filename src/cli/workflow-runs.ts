import { readFileSync } from "node:fs";
import { NbError } from "../core/errors.js";
import type { Harness } from "../harness/loop.js";
import { openHarness } from "../runtime/open.js";
import { harnessToolPort } from "../runtime/workflow-tools.js";
import { getWorkflow } from "../workflows/catalog.js";
import { followRun, runSummaryText } from "../workflows/follow.js";
import { runsFor } from "../workflows/runs-for.js";
import { type RunView, runView, type WorkflowRuns } from "../workflows/service.js";
import { type RunRecord, WorkflowStore } from "../workflows/store/index.js";
import type { Project } from "../workspace/project.js";
import type { Workspace } from "../workspace/workspace.js";
import { parseMode, readJsonArgument } from "./input.js";
import { locateProject } from "./locate.js";
import { printJson, writeErr, writeOut } from "./output.js";

export interface RunOpts {
  workspace?: string;
  project?: string;
  json?: boolean;
  args?: string;
  answers?: string;
  script?: string;
  file?: string;
  model?: string;
  mode?: string;
}

/**
 * A progress line whenever the run's status, phase or usage changes, and one line per agent as it
 * joins the run (to stderr, so stdout keeps the result).
 */
function progressPrinter(store: WorkflowStore): (run: RunRecord) => void {
  let last = "";
  const seen = new Set<string>();
  return (run) => {
    for (const p of store.participants(run.id)) {
      if (seen.has(p.sessionId)) continue;
      seen.add(p.sessionId);
      writeErr(
        `  + agent #${p.sessionId} ${p.profileKey} "${p.title}"${p.ephemeral ? " (ephemeral)" : ""}\n`,
      );
    }
    const p = run.progress;
    const phase = p?.phase
      ? `${p.phase}${p.total !== undefined ? ` ${p.done ?? 0}/${p.total}` : ""}`
      : "starting";
    const line = `[${run.id}] ${run.status} · ${phase} · ${seen.size} agent(s) · ${run.usage.invocations} invocation(s), ${run.usage.tokens} tokens`;
    if (line !== last) writeErr(`${line}\n`);
    last = line;
  };
}

/** The runs of a workspace driven from the CLI: a run an agent started keeps that agent as its caller. */
class CliRuns {
  readonly store: WorkflowStore;
  private harness: Harness | null = null;

  constructor(
    readonly workspace: Workspace,
    readonly project: Project | null,
    private readonly o: RunOpts,
  ) {
    this.store = WorkflowStore.forWorkspace(workspace);
  }

  /** Workflow runs whose agents belong to the run's caller (or are the user's own). */
  runsFor(run: Pick<RunRecord, "callerSessionId" | "mode" | "id"> | null): WorkflowRuns {
    this.harness ??= openHarness({ workspace: this.workspace, project: this.project, script: this.o.script });
    return runsFor({
      harness: this.harness,
      workspace: this.workspace,
      project: this.project,
      store: this.store,
      tools: harnessToolPort(this.harness, this.workspace, this.project),
      run,
      mode: parseMode(this.o.mode) ?? "normal",
      ...(this.o.json ? {} : { onUpdate: progressPrinter(this.store) }),
    });
  }

  close(): void {
    this.harness?.close();
    this.store.close();
  }
}

/** Open what a run command needs; the project must be the run's when it names a run. */
export function openCliRuns(o: RunOpts): CliRuns {
  const { workspace, project } = locateProject(o);
  return new CliRuns(workspace, project, o);
}

/** Print a run at its end (or where it waits). */
function printOutcome(runs: WorkflowRuns, run: RunRecord, json?: boolean): void {
  if (json) {
    printJson({ ...runs.view(run.id), ok: run.status !== "failed" });
    return;
  }
  writeOut(`${runSummaryText(run)}\n`);
  if (run.status === "waiting") {
    for (const a of runs.store.asks(run.id))
      writeOut(`  ask ${a.key} (${String(a.spec.kind)}): ${String(a.spec.title)}\n`);
    writeOut(`Answer with: nbook workflows answer ${run.id} --answers '{"<key>": …}'\n`);
  }
  if (run.status === "failed") process.exitCode = 1;
}

/** Ctrl-C cancels the run this command drives. */
function interruptible(): AbortSignal {
  const c = new AbortController();
  process.once("SIGINT", () => c.abort());
  return c.signal;
}

/** Drive a run to its end or its first wait and print it. */
async function driveAndPrint(runs: WorkflowRuns, runId: string, json?: boolean): Promise<void> {
  const signal = interruptible();
  const run = await runs.drive(runId, signal);
  printOutcome(runs, signal.aborted ? await runs.cancel(runId) : run, json);
}

/** `nbook workflows run <key> | --file script.js`. */
export async function runCommand(key: string | undefined, o: RunOpts): Promise<void> {
  const cli = openCliRuns(o);
  try {
    const args = o.args ? readJsonArgument("--args", o.args) : {};
    const runs = cli.runsFor(null);
    let target: Parameters<WorkflowRuns["start"]>[0]["target"];
    if (o.file) target = { script: readFileSync(o.file, "utf8") };
    else if (key) target = { workflow: await getWorkflow(cli.workspace, cli.project, key) };
    else throw new NbError("invalid_input", "Name a workflow key, or pass --file <script.js>");
    const run = await runs.start({
      target,
      args,
      model: o.model ?? null,
      mode: parseMode(o.mode) ?? "normal",
    });
    await driveAndPrint(runs, run.id, o.json);
  } finally {
    cli.close();
  }
}

/** `nbook workflows resume <runId>`: continue a run whose process died (from its journal). */
export async function resumeCommand(runId: string, o: RunOpts): Promise<void> {
  const cli = openCliRuns(o);
  try {
    const run = cli.store.run(runId);
    const runs = cli.runsFor(run);
    if (run.status !== "running") {
      printOutcome(runs, run, o.json);
      return;
    }
    await driveAndPrint(runs, runId, o.json);
  } finally {
    cli.close();
  }
}

/** `nbook workflows answer <runId> --answers '{…}'`: answer every pending question, then continue. */
export async function answerCommand(runId: string, o: RunOpts): Promise<void> {
  if (!o.answers) throw new NbError("invalid_input", "--answers '{\"<key>\": …}' is required");
  const cli = openCliRuns(o);
  try {
    const run = cli.store.run(runId);
    const runs = cli.runsFor(run);
    runs.answer(runId, readJsonArgument("--answers", o.answers));
    const signal = interruptible();
    // A background job of a live process may take the run over; then this command only watches.
    const out = await followUntilSettled(runs, runId, signal);
    printOutcome(runs, out, o.json);
  } finally {
    cli.close();
  }
}

/** Follow a run until it ends or waits on the user again. */
function followUntilSettled(runs: WorkflowRuns, runId: string, signal: AbortSignal): Promise<RunRecord> {
  return followRun(runs, runId, signal, { waiting: () => "stop" });
}

/** `nbook workflows cancel <runId>`. */
export async function cancelCommand(runId: string, o: RunOpts): Promise<void> {
  const cli = openCliRuns(o);
  try {
    const runs = cli.runsFor(cli.store.run(runId));
    const run = await runs.cancel(runId);
    if (o.json) printJson({ run: runs.view(run.id).run });
    else
      writeOut(
        `Run ${run.id}: ${run.status}${run.status === "running" ? " (cancel requested; its process stops it)" : ""}\n`,
      );
  } finally {
    cli.close();
  }
}

/** The state of a run: status, phase progress, participants, usage, timeline, pending asks. */
export function printRunView(view: RunView, json?: boolean): void {
  if (json) {
    printJson(view);
    return;
  }
  const { run } = view;
  const p = run.progress;
  const lines = [
    `Run ${run.id}: ${run.workflowKey} (${run.title}) — ${run.status}`,
    `Phases: ${run.phases.map((ph) => (p?.phase === ph.key ? `[${ph.key} ${p.done ?? 0}/${p.total ?? "?"}]` : ph.key)).join(" → ") || "(none)"}`,
    `Usage: ${run.usage.invocations}/${run.budget.maxInvocations} invocations, ${run.usage.tokens}/${run.budget.maxTokens} tokens`,
    `Participants: ${view.participants.map((x) => `#${x.sessionId} ${x.profileKey} "${x.title}"${x.ephemeral ? " (ephemeral)" : ""}`).join(", ") || "(none)"}`,
    "Activities:",
    ...view.timeline.map((t) => `  #${t.seq} ${t.kind} ${t.ok ? "ok" : "failed"} ${t.ms} ms`),
    // An ask's description is what the user decides on (a backfill batch lists its proposals).
    ...view.pendingAsks.flatMap((a) => [
      `Waiting on ${a.key} (${String(a.spec.kind)}): ${String(a.spec.title)}`,
      ...(typeof a.spec.description === "string" ? a.spec.description.split("\n").map((l) => `  ${l}`) : []),
    ]),
    ...(run.error ? [`Error (${run.error.code}): ${run.error.message}`] : []),
    ...(run.status === "completed" ? [`Result: ${JSON.stringify(run.result, null, 2)}`] : []),
    ...run.logs.map((l) => `log: ${l}`),
  ];
  writeOut(`${lines.join("\n")}\n`);
}

/** `nbook workflows runs`: the latest runs. */
export function listRunsCommand(o: RunOpts): void {
  const { workspace } = locateProject(o);
  const store = WorkflowStore.forWorkspace(workspace);
  try {
    const runs = store.listRuns({ limit: 30 });
    if (o.json) {
      printJson({ runs: runs.map(({ source: _s, ...r }) => r) });
      return;
    }
    for (const r of runs)
      writeOut(
        `${r.id}  ${r.status.padEnd(10)}${r.workflowKey.padEnd(30)}${new Date(r.updatedAt).toISOString()}\n`,
      );
    if (!runs.length) writeOut("(no runs)\n");
  } finally {
    store.close();
  }
}

/** `nbook workflows show <runId>`. */
export function showRunCommand(runId: string, o: RunOpts): void {
  const { workspace } = locateProject(o);
  const store = WorkflowStore.forWorkspace(workspace);
  try {
    printRunView(runView(store, runId), o.json);
  } finally {
    store.close();
  }
}
