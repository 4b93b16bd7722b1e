import type { Command } from "commander";
import { NbError } from "../../core/errors.js";
import { listWorkflows, usable, type WorkflowEntry } from "../../workflows/catalog.js";
import { closeWorkflowSandbox } from "../../workflows/sandbox/index.js";
import { locateProject } from "../locate.js";
import { printJson, reportCliError } from "../output.js";

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
    process.stdout.write(`${w.key.padEnd(30)}${w.status.padEnd(8)}${w.layer.padEnd(11)}${what}\n`);
  }
  if (rows.length === 0) process.stdout.write("(no workflows)\n");
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
  process.stdout.write(`${lines.join("\n")}\n`);
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

/** `nbook workflows list|show`. */
export function registerWorkflows(program: Command): void {
  const wf = program
    .command("workflows")
    .description("Workflows: list and show definitions (built-in, workspace and project layers)");
  wf.command("list")
    .description("List the workflows with their status (ok, or broken with file:line and reason) and layer")
    .option("--workspace <dir>", "workspace root")
    .option("--project <name>", "project (adds its workflow layer)")
    .option("--json", "print JSON")
    .action(action(listCommand, (o: Opts) => o.json));
  wf.command("show")
    .description("Show a workflow definition: title, description, phases, args schema")
    .argument("<key>", "workflow key")
    .option("--workspace <dir>", "workspace root")
    .option("--project <name>", "project")
    .option("--json", "print JSON (with the source)")
    .action(action(showDefinition, (_k: string, o: Opts) => o.json));
}
