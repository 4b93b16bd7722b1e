import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { NbError } from "../core/errors.js";
import { removeProjectFile, writeProjectFile } from "../workspace/anchored-fs.js";
import { resolveFileAddress } from "../workspace/paths.js";
import { describePaths, type History, START_TOOL, type WriteOrigin } from "./history.js";
import { newChangeId } from "./ids.js";
import { undoInFile } from "./merge.js";
import type { FileDelta } from "./repo.js";
import { revertRowsOf } from "./rows.js";
import type { Change } from "./schema.js";

/** A file a revert cannot take its change back from: both versions, so the user can choose. */
export interface RevertConflict {
  path: string;
  change: string;
  why: string;
  /** The file as it is now (null: absent). */
  current: string | null;
  /** The file as the change found it (null: absent): what the revert would restore. */
  before: string | null;
  /** The three-way merge with conflict markers, for edits to the same lines. */
  merged?: string;
}

/** Read a project file as it is now (null: absent). */
async function readNow(history: History, path: string): Promise<Buffer | null> {
  return readFile(join(history.project.root, path)).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT" || e.code === "ENOTDIR") return null;
    throw e;
  });
}

/** The file deltas of each change (newest first), fetched from the history. */
async function deltasOf(history: History, changes: readonly Change[]): Promise<Map<string, FileDelta[]>> {
  const out = new Map<string, FileDelta[]>();
  for (const c of changes) {
    if (!c.commit) continue;
    const parent = await history.repo.parentOf(c.commit);
    if (parent === null || c.tool === START_TOOL)
      throw new NbError(
        "invalid_input",
        `Change ${c.id} is where the history begins; there is nothing before it`,
      );
    out.set(c.id, await history.repo.deltas(parent, c.commit));
  }
  return out;
}

/**
 * Take these changes back (newest first), as one new change by `who` (actor "revert"), all or
 * nothing. Every part is planned before anything is written: each file's result is merged in
 * memory (a conflict anywhere refuses the whole revert with `conflict`, both versions of each file
 * in `details.conflicts`), and the row reverts are tried and rolled back. Then the files are
 * written and the rows reverted; a failure then puts back the files already written.
 * Outside edits to the files are recorded first, so the revert never takes them for the change's.
 */
export async function revertChanges(
  history: History,
  changes: readonly Change[],
  who: Partial<WriteOrigin>,
): Promise<Change | null> {
  if (changes.length === 0) throw new NbError("invalid_input", "No changes to revert");
  const ordered = history.index.newestFirst(changes);
  const deltas = await deltasOf(history, ordered);
  const paths = [...new Set([...deltas.values()].flat().map((d) => d.path))];
  const id = newChangeId();
  const ids = ordered.map((c) => c.id);
  const pending = await history.begin(id, paths);
  try {
    const plan = await planUndo(history, ordered, deltas);
    revertRowsOf(history.project, ids, id, { check: true });
    const rows = await writeThen(history, plan, () => revertRowsOf(history.project, ids, id));
    const results = plan.results;
    return await history.finish(
      pending,
      { tool: who.tool ?? null, session: who.session ?? null, profile: who.profile ?? null, callId: null },
      {
        summary: `Revert ${ids.join(", ")}${results.size ? `: ${describePaths([...results.keys()])}` : ""}`,
        targets: [...results.keys()],
        rows: rows > 0,
      },
      { actor: "revert", reverts: ids },
    );
  } catch (e) {
    history.drop(pending);
    throw e;
  }
}

/** Put a project file to this content (null: remove it). */
async function put(history: History, path: string, content: Buffer | null): Promise<void> {
  const r = resolveFileAddress(history.project.workspace, history.project, path);
  if (content === null) await removeProjectFile(r).catch(ignoreMissing);
  else await writeProjectFile(r, content);
}

/**
 * Write the planned files, then run `rows`; when a write or `rows` fails, the files written are
 * put back as they were found, and the error goes on.
 */
async function writeThen(history: History, plan: UndoPlan, rows: () => number): Promise<number> {
  const written: string[] = [];
  try {
    for (const [path, content] of plan.results) {
      written.push(path);
      await put(history, path, content);
    }
    return rows();
  } catch (e) {
    for (const path of written.reverse()) await put(history, path, plan.start.get(path) ?? null);
    throw e;
  }
}

function ignoreMissing(e: unknown): void {
  if (!(e instanceof NbError && e.code === "not_found")) throw e;
}

/** A revert's files: the content each will have (only files that change), and as each was found. */
interface UndoPlan {
  results: Map<string, Buffer | null>;
  start: Map<string, Buffer | null>;
}

/** Each file's content once every change is taken back, merged in memory; conflicts throw. */
async function planUndo(
  history: History,
  ordered: readonly Change[],
  deltas: Map<string, FileDelta[]>,
): Promise<UndoPlan> {
  const shas = [...deltas.values()].flat().flatMap((d) => [d.before, d.after].filter((s) => s !== null));
  const blobs = await history.repo.blobs(shas as string[]);
  const blob = (sha: string | null) => (sha === null ? null : (blobs.get(sha) as Buffer));
  const state = new Map<string, Buffer | null>();
  const start = new Map<string, Buffer | null>();
  const conflicts: RevertConflict[] = [];
  for (const c of ordered) {
    for (const d of deltas.get(c.id) ?? []) {
      if (!start.has(d.path)) start.set(d.path, await readNow(history, d.path));
      const current = state.has(d.path) ? (state.get(d.path) as Buffer | null) : (start.get(d.path) ?? null);
      const outcome = await undoInFile(current, blob(d.after), blob(d.before), {
        current: `${d.path} (now)`,
        after: `${d.path} (after ${c.id})`,
        before: `${d.path} (before ${c.id})`,
      });
      if (outcome.kind === "conflict") {
        conflicts.push({
          path: d.path,
          change: c.id,
          why: outcome.why,
          current: current?.toString("utf8") ?? null,
          before: blob(d.before)?.toString("utf8") ?? null,
          ...(outcome.merged !== undefined ? { merged: outcome.merged } : {}),
        });
      } else state.set(d.path, outcome.content);
    }
  }
  if (conflicts.length) {
    const list = conflicts.map((k) => `${k.path} (${k.why}, change ${k.change})`).join("; ");
    throw new NbError("conflict", `Cannot revert: ${list}. Nothing was changed.`, { details: { conflicts } });
  }
  const changed = new Map<string, Buffer | null>();
  for (const [path, content] of state) {
    const was = start.get(path) ?? null;
    if (content === null ? was !== null : was === null || !was.equals(content)) changed.set(path, content);
  }
  return { results: changed, start };
}
