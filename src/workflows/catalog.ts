import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ErrorInfo, isNbError, NbError, toErrorInfo } from "../core/errors.js";
import { formatFieldErrors, zodFieldErrors } from "../core/validate.js";
import { agentRoots, layerFile, subfolders } from "../workspace/agent-roots.js";
import type { Project } from "../workspace/project.js";
import { readTextSafeSync } from "../workspace/safe-read.js";
import type { Workspace } from "../workspace/workspace.js";
import { argsSchema } from "./args.js";
import { BrokenWorkflowCache, fileIdentity } from "./broken-cache.js";
import { WORKFLOW_FILE, WorkflowKey, type WorkflowMeta, WorkflowMetaSchema } from "./definition.js";
import { describeWorkflowModule } from "./sandbox/index.js";

/** Where a workflow comes from; a later layer overrides an earlier one by key. */
export type WorkflowLayer = "builtin" | "workspace" | "project";

/** A workflow folder and what is known about it. */
export interface WorkflowEntry {
  key: string;
  layer: WorkflowLayer;
  /** How a person finds the file: `(builtin)/<key>/workflow.js`, or workspace-relative. */
  file: string;
  status: "ok" | "broken";
  /** Why a broken workflow is broken, with the line of the file when one is known. */
  reason?: string;
  line?: number;
  meta?: WorkflowMeta;
  /** The module's text (what a run executes; a run keeps its own copy). */
  source?: string;
}

/** A workflow that loaded. */
export type Workflow = WorkflowEntry & { status: "ok"; meta: WorkflowMeta; source: string };

/** The folder the built-in workflows ship in (copied into dist/ by the build). */
export const BUILTIN_WORKFLOWS_DIR = fileURLToPath(new URL("./builtin/", import.meta.url));

interface Root {
  layer: WorkflowLayer;
  dir: string;
  /** How a person names the folder (workspace-relative); null for the built-in layer. */
  label: string | null;
  /** A real path the workflow files must stay inside (a project's), or null. */
  within: string | null;
  /** Where broken files of this layer are remembered across processes (none for the built-ins). */
  broken: BrokenWorkflowCache | null;
}

/** The layers' roots, lowest first. */
function roots(workspace: Workspace | null, project: Project | null): Root[] {
  const broken = workspace ? new BrokenWorkflowCache(workspace) : null;
  return [
    { layer: "builtin", dir: BUILTIN_WORKFLOWS_DIR, label: null, within: null, broken: null },
    ...agentRoots("workflows", workspace, project).map((r) => ({ ...r, broken })),
  ];
}

/** The largest workflow.js read. */
const MAX_WORKFLOW_BYTES = 1024 * 1024;

// One evaluation per file version (fileIdentity) in a process: the catalog is listed on every call.
const cache = new Map<string, { stamp: string; entry: WorkflowEntry }>();

/** Sandbox failures that say nothing of the file (the sandbox could not start, it was stopped). */
const PASSING_FAILURES = new Set(["internal", "aborted"]);

/**
 * Every workflow of the three layers (built-in < workspace < project), the winning one per key,
 * sorted by key. A broken workflow is listed with its file, line and reason, and still overrides a
 * lower layer's workflow of the same key: running the one its author replaced would be a surprise.
 */
export async function listWorkflows(
  workspace: Workspace | null,
  project: Project | null,
): Promise<WorkflowEntry[]> {
  const byKey = new Map<string, Promise<WorkflowEntry>>();
  for (const root of roots(workspace, project)) {
    for (const key of subfolders(root.dir)) {
      const file = `${root.label ?? "(builtin)"}/${key}/${WORKFLOW_FILE}`;
      byKey.set(key, loadEntry(key, root, join(root.dir, key, WORKFLOW_FILE), file));
    }
  }
  const entries = await Promise.all(byKey.values());
  return entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** The workflow of a key; `not_found` (naming the known keys) or `config_error` when it is broken. */
export async function getWorkflow(
  workspace: Workspace | null,
  project: Project | null,
  key: string,
): Promise<Workflow> {
  const all = await listWorkflows(workspace, project);
  const w = all.find((e) => e.key === key);
  if (!w) {
    throw new NbError(
      "not_found",
      `No workflow named ${key}; known: ${all.map((e) => e.key).join(", ") || "(none)"}`,
    );
  }
  return usable(w);
}

/** The entry as a usable workflow, or `config_error` saying where it is broken. */
export function usable(w: WorkflowEntry): Workflow {
  if (w.status !== "ok" || !w.meta || w.source === undefined) {
    throw brokenError(w);
  }
  return w as Workflow;
}

function brokenError(w: WorkflowEntry): NbError {
  const at = w.line === undefined ? w.file : `${w.file}:${w.line}`;
  return new NbError("config_error", `Workflow ${w.key} is broken: ${at}: ${w.reason}`);
}

async function loadEntry(key: string, root: Root, abs: string, file: string): Promise<WorkflowEntry> {
  const base = { key, layer: root.layer, file };
  if (!WorkflowKey.safeParse(key).success)
    return {
      ...base,
      status: "broken",
      reason: "the folder name must be lowercase letters, digits and hyphens",
    };
  const found = layerFile(root, abs, WORKFLOW_FILE);
  if ("broken" in found) return { ...base, status: "broken", reason: found.broken };
  const stamp = fileIdentity(found.stat);
  const cached = cache.get(abs);
  if (cached?.stamp === stamp) return cached.entry;
  // Found broken by another process (or an earlier one): not evaluated again until it changes.
  const known = root.broken?.get(abs, stamp);
  if (known) {
    const entry: WorkflowEntry = { ...base, status: "broken", ...known };
    cache.set(abs, { stamp, entry });
    return entry;
  }
  let source: string | null;
  try {
    source = readTextSafeSync(abs, { label: WORKFLOW_FILE, root: root.within, maxBytes: MAX_WORKFLOW_BYTES });
  } catch (e) {
    return { ...base, status: "broken", reason: toErrorInfo(e).message };
  }
  if (source === null) return { ...base, status: "broken", reason: `no ${WORKFLOW_FILE} in the folder` };
  const { entry, lasting } = await evaluateEntry(base, source);
  cache.set(abs, { stamp, entry });
  if (entry.status === "broken" && lasting) {
    root.broken?.set(abs, stamp, {
      reason: entry.reason ?? "broken",
      ...(entry.line ? { line: entry.line } : {}),
    });
  }
  return entry;
}

/**
 * Evaluate a workflow module's metadata in the sandbox and check it; a problem makes the entry
 * broken. `lasting`: the verdict is the file's own, to hold until the file changes.
 */
async function evaluateEntry(
  base: Pick<WorkflowEntry, "key" | "layer" | "file">,
  source: string,
): Promise<{ entry: WorkflowEntry; lasting: boolean }> {
  let raw: unknown;
  try {
    raw = await describeWorkflowModule(source, WORKFLOW_FILE);
  } catch (e) {
    const info: ErrorInfo = toErrorInfo(e);
    const line = (info.details as { line?: number } | undefined)?.line;
    return {
      entry: { ...base, status: "broken", reason: info.message, ...(line ? { line } : {}) },
      lasting: !PASSING_FAILURES.has(info.code),
    };
  }
  return { entry: checkExports(base, source, raw), lasting: true };
}

/** The entry for a module's evaluated exports: ok, or broken saying which export is wrong. */
function checkExports(
  base: Pick<WorkflowEntry, "key" | "layer" | "file">,
  source: string,
  raw: unknown,
): WorkflowEntry {
  const { hasRun, ...exported } = raw as { hasRun: boolean } & Record<string, unknown>;
  if (!hasRun)
    return {
      ...base,
      status: "broken",
      reason: "no default export function (export default async function run(wf, args) { … })",
    };
  const r = WorkflowMetaSchema.safeParse(exported);
  if (!r.success) {
    const fields = zodFieldErrors(r.error);
    const name = fields[0]?.pointer.split("/")[1];
    const line = name ? exportLine(source, name) : undefined;
    return {
      ...base,
      status: "broken",
      reason: `invalid exports:\n${formatFieldErrors(fields)}`,
      ...(line ? { line } : {}),
    };
  }
  try {
    argsSchema(r.data.args);
  } catch (e) {
    const line = exportLine(source, "args");
    const why = isNbError(e) ? e.message : (e as Error).message;
    return {
      ...base,
      status: "broken",
      reason: `the args schema is not a usable JSON Schema: ${why}`,
      ...(line ? { line } : {}),
    };
  }
  return { ...base, status: "ok", meta: r.data, source };
}

/** The 1-based line of `export const <name>` (or the top when the export is missing). */
function exportLine(source: string, name: string): number | undefined {
  const lines = source.split("\n");
  const re = new RegExp(`^\\s*export\\s+(const|let|var|function)\\s+${name}\\b`);
  const i = lines.findIndex((l) => re.test(l));
  return i >= 0 ? i + 1 : 1;
}
