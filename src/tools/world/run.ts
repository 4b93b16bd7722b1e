import type { Project } from "../../workspace/project.js";
import type { Issue, WriteRecord } from "../../world/api.js";
import { loadCalendar } from "../../world/calendar/index.js";
import { loadSandbox, runScriptSync } from "../../world/sandbox/index.js";
import { openWorld } from "../../world/world.js";
import type { WorldAccess } from "./access.js";
import { IssueCollector, worldHostApi } from "./host-api.js";

/** Wall-clock budget of a script, by access (a writing script may do more work). */
export const WORLD_SCRIPT_TIMEOUT_MS: Readonly<Record<WorldAccess, number>> = {
  readonly: 5_000,
  readwrite: 15_000,
};

/** What one script run produced. */
export interface WorldScriptOutcome {
  /** The script's return value (after a JSON round trip). */
  value: unknown;
  console: string[];
  /** Issues the script's writes caused (deduplicated). */
  issues: Issue[];
  /** Every write the script made (or would have made, in a dry run). */
  writes: WriteRecord[];
  dryRun: boolean;
}

export interface WorldScriptOptions {
  access: WorldAccess;
  /** Roll everything back at the end (always the case for read-only access). */
  dryRun?: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * Run a script against a project's World Engine inside the QuickJS sandbox. The whole script is
 * one transaction (a throw or a timeout rolls it all back); each write call is its own savepoint.
 */
export async function runWorldScript(
  project: Project,
  code: string,
  opts: WorldScriptOptions,
): Promise<WorldScriptOutcome> {
  await loadSandbox();
  const world = openWorld(project);
  const dryRun = opts.dryRun === true || opts.access === "readonly";
  const collector = new IssueCollector();
  const hidePaths = [project.root, project.realRoot, project.workspace.root, project.workspace.realRoot];
  const { value, writes } = world.transaction(
    () =>
      runScriptSync({
        code,
        api: worldHostApi({ world, calendar: () => loadCalendar(project), access: opts.access, collector }),
        limits: { timeoutMs: opts.timeoutMs ?? WORLD_SCRIPT_TIMEOUT_MS[opts.access] },
        signal: opts.signal,
        hidePaths,
      }),
    { dryRun },
  );
  return { value: value.value, console: value.console, issues: collector.issues, writes, dryRun };
}
