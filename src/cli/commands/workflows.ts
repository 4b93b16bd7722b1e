import type { Command } from "commander";
import { NbError } from "../../core/errors.js";
import { listWorkflows, usable, type WorkflowEntry } from "../../workflows/catalog.js";
import { closeWorkflowSandbox } from "../../workflows/sandbox/index.js";
import { locateProject } from "../locate.js";
import { printJson, reportCliError, writeOut } from "../output.js";
import {
  answerCommand,
  cancelCommand,
  listRunsCommand,
  type RunOpts,
  resumeCommand,
  runCommand,
  showRunCommand,
} from "../workflow-runs.js";

interface Opts {
  workspace?: string;
  project?: string;
  json?: boolean;
}

function row(w: WorkflowEntry) {
  return {
    key: w.key,
    status: w.status,
    layer: w.layer,
    file: w.file,
    ...(w.reason ? { reason: w.reason } : {}),
    ...(w.line ? { line: w.line } : {}),
    ...(w.meta
      ? {
          title: w.meta.title,
          description: w.meta.description,
          whenToUse: w.meta.whenToUse,
          phases: w.meta.phases,
        }
      : {}),
  };
}

const where = (w: WorkflowEntry) => (w.line ? `${w.file}:${w.line}` : w.file);

async function listCommand(o: Opts): Promise<void> {
  const { workspace, project } = locateProject(o);
  const rows = (await listWorkflows(workspace, project)).map((w) => ({ w, r: row(w) }));
  if (o.json) {
    printJson({ workflows: rows.map((x) => x.r) });
    return;
  }
  for (const { w } of rows) {
    const what = w.status === "ok" ? w.meta?.title : `BROKEN ${where(w)}: ${w.reason?.split("\n").join(" ")}`;
    writeOut(`${w.key.padEnd(30)}${w.status.padEnd(8)}${w.layer.padEnd(11)}${what}\n`);
  }
  if (rows.length === 0) writeOut("(no workflows)\n");
}

async function showDefinition(key: string, o: Opts): Promise<void> {
  const { workspace, project } = locateProject(o);
  const entry = (await listWorkflows(workspace, project)).find((w) => w.key === key);
  if (!entry) throw new NbError("not_found", `No workflow named ${key} (nbook workflows list shows them)`);
  const w = usable(entry);
  if (o.json) {
    printJson({ workflow: row(w), source: w.source });
    return;
  }
  const lines = [
    `# ${w.meta.title} (${w.key}; ${w.layer}, ${w.file})`,
    "",
    w.meta.description,
    "",
    `When to use: ${w.meta.whenToUse}`,
    `Phases: ${w.meta.phases.map((p) => `${p.key} (${p.title})`).join(", ")}`,
    `Args (JSON Schema): ${JSON.stringify(w.meta.args, null, 2)}`,
  ];
  writeOut(`${lines.join("\n")}\n`);
}

/** Run a command body, report its error, and stop the sandbox workers so the process can exit. */
function action<A extends unknown[]>(fn: (...a: A) => Promise<void>, json: (...a: A) => boolean | undefined) {
  return async (...a: A) => {
    try {
      await fn(...a);
    } catch (e) {
      reportCliError(e, json(...a));
    } finally {
      await closeWorkflowSandbox();
    }
  };
}

const RUN_ID = /^run_[0-9a-f]{12}$/;

/** `nbook workflows list|show|run|runs|resume|answer|cancel`. */
export function registerWorkflows(program: Command): void {
  const wf = program
    .command("workflows")
    .description(
      "Workflows: list and show definitions (built-in, workspace and project layers); run, resume, answer, cancel and show runs",
    );
  wf.command("list")
    .description("List the workflows with their status (ok, or broken with file:line and reason) and layer")
    .option("--workspace <dir>", "workspace root")
    .option("--project <name>", "project (adds its workflow layer)")
    .option("--json", "print JSON")
    .action(action(listCommand, (o: Opts) => o.json));
  wf.command("show")
    .description(
      "Show a workflow definition (title, description, phases, args schema), or a run (run_…): status, phase progress, participants, usage, activity timeline, pending asks",
    )
    .argument("<keyOrRunId>", "workflow key, or run id")
    .option("--workspace <dir>", "workspace root")
    .option("--project <name>", "project")
    .option("--json", "print JSON (a definition with its source)")
    .action(
      action(
        async (k: string, o: Opts) => (RUN_ID.test(k) ? showRunCommand(k, o) : showDefinition(k, o)),
        (_k: string, o: Opts) => o.json,
      ),
    );
  const common = (c: Command) =>
    c
      .option("--workspace <dir>", "workspace root")
      .option("--project <name>", "project")
      .option("--script <file>", "a scripted model for every agent (offline; see docs/scripted-model.md)")
      .option("--json", "print JSON at the end");
  common(
    wf
      .command("run")
      .description("Run a workflow in the foreground with a live progress line (Ctrl-C cancels it)")
      .argument("[key]", "workflow key")
      .option("--args <json>", "the workflow's args as JSON (or @file)")
      .option("--file <script.js>", "run this workflow module instead of a key")
      .option("--model <provider/model>", "default model of the run's agents (must be visible to agents)")
      .option("--mode <mode>", "mode of the run's agents: normal, discuss or plan (default normal)"),
  ).action(action(runCommand, (_k: string | undefined, o: RunOpts) => o.json));
  common(
    wf
      .command("resume")
      .description("Continue a run whose process died, from its journal")
      .argument("<runId>", "run id"),
  ).action(action(resumeCommand, (_r: string, o: RunOpts) => o.json));
  common(
    wf
      .command("answer")
      .description("Answer every pending question of a waiting run at once, then continue it")
      .argument("<runId>", "run id")
      .option("--answers <json>", "answers by ask key, e.g. '{\"keep\": true}' (or @file)"),
  ).action(action(answerCommand, (_r: string, o: RunOpts) => o.json));
  common(
    wf
      .command("cancel")
      .description("Cancel a run (waiting, or running here or in another process)")
      .argument("<runId>", "run id"),
  ).action(action(cancelCommand, (_r: string, o: RunOpts) => o.json));
  wf.command("runs")
    .description("List the latest workflow runs")
    .option("--workspace <dir>", "workspace root")
    .option("--json", "print JSON")
    .action(
      action(
        async (o: Opts) => listRunsCommand(o),
        (o: Opts) => o.json,
      ),
    );
}
