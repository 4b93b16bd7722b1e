import { statSync } from "node:fs";
import { NbError, toErrorInfo } from "../../core/errors.js";
import type { Project } from "../../workspace/project.js";
import { Workspace } from "../../workspace/workspace.js";
import type { Issue, WriteRecord } from "../api.js";
import { loadCalendar } from "../calendar/index.js";
import { recordWorldRows } from "../change-log.js";
import { runScriptSync, type ScriptClock } from "../sandbox/index.js";
import { openWorld } from "../world.js";
import { type CanonicalWrite, canonicalWrites, sameWrites } from "./canonical.js";
import { WriteCollector, worldHostApi } from "./host-api.js";

/** How much of the World Engine a script may touch. */
export type WorldAccess = "readonly" | "readwrite";

/** One World Engine script (the execute_world tool's), as the main thread hands it to a sandbox worker. */
export interface WorldJob {
  workspaceRoot: string;
  project: string;
  code: string;
  access: WorldAccess;
  /** Roll everything back at the end (always the case for read-only access). */
  dryRun: boolean;
  timeoutMs: number;
  clock: ScriptClock;
  /** The writes an approved preview recorded: the run is kept only if it makes exactly these. */
  expect?: CanonicalWrite[];
  /** The history change a kept run's rows are logged under (in the script's transaction). */
  changeId?: string;
}

/** What one script run produced. */
export interface WorldJobResult {
  /** The script's return value (after a JSON round trip). */
  value: unknown;
  console: string[];
  /** Issues the script's writes caused (deduplicated). */
  issues: Issue[];
  /** Every write the script made (or would have made, in a dry run). */
  writes: WriteRecord[];
  /** The same writes by content, as an approval basis records them. */
  canonical: CanonicalWrite[];
  dryRun: boolean;
}

/** Projects a worker keeps open (connections and caches are the point of a warm worker). */
const MAX_OPEN_PROJECTS = 8;
const open = new Map<string, { project: Project; dbInode: bigint }>();

/** The project, reopened when its world.sqlite was replaced or removed since it was opened here. */
function openProject(workspaceRoot: string, name: string): Project {
  const key = `${workspaceRoot}\u0000${name}`;
  const cached = open.get(key);
  if (cached && inode(cached.project.dbPath("world")) === cached.dbInode) {
    open.delete(key);
    open.set(key, cached);
    return cached.project;
  }
  if (cached) {
    cached.project.workspace.close();
    open.delete(key);
  }
  const project = Workspace.open(workspaceRoot).project(name);
  openWorld(project);
  open.set(key, { project, dbInode: inode(project.dbPath("world")) });
  if (open.size > MAX_OPEN_PROJECTS) {
    const [oldest, entry] = open.entries().next().value as [string, { project: Project }];
    entry.project.workspace.close();
    open.delete(oldest);
  }
  return project;
}

function inode(file: string): bigint {
  try {
    return statSync(file, { bigint: true }).ino;
  } catch {
    return -1n;
  }
}

/**
 * Run one script against a project's World Engine inside the QuickJS sandbox, in this thread (a
 * worker the main thread kills at the deadline). The whole script is one transaction: a throw
 * rolls it all back, and so does the thread being killed, since the transaction never commits.
 * Each write call is its own savepoint.
 */
export function runWorldJob(job: WorldJob): WorldJobResult {
  const hidePaths = [job.workspaceRoot];
  try {
    const project = openProject(job.workspaceRoot, job.project);
    hidePaths.push(project.root, project.realRoot, project.workspace.realRoot);
    const world = openWorld(project);
    const collector = new WriteCollector();
    const script = () =>
      runScriptSync({
        code: job.code,
        api: worldHostApi({ world, calendar: () => loadCalendar(project), access: job.access, collector }),
        limits: { timeoutMs: job.timeoutMs },
        clock: job.clock,
        hidePaths,
      });
    const dryRun = job.dryRun || job.access === "readonly";
    const { expect, changeId } = job;
    const run = changeId === undefined || dryRun ? script : () => recordWorldRows(world.db, changeId, script);
    const { value, writes } =
      expect === undefined
        ? world.transaction(run, { dryRun })
        : world.transaction(() => {
            const inner = world.transaction(run);
            const made = canonicalWrites(inner.writes, collector.metas);
            if (!sameWrites(made, expect)) {
              throw new NbError("conflict", "The script's writes differ from the ones its preview showed", {
                details: { approvedRun: { writes: inner.writes, canonical: made } },
              });
            }
            return inner.value;
          });
    return {
      value: value.value,
      console: value.console,
      issues: collector.issues,
      writes,
      canonical: canonicalWrites(writes, collector.metas),
      dryRun,
    };
  } catch (e) {
    const info = toErrorInfo(e, hidePaths);
    throw new NbError(info.code, info.message, { fields: info.fields, details: info.details });
  }
}
