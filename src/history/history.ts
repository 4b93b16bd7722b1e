import { existsSync } from "node:fs";
import { join } from "node:path";
import { NbError } from "../core/errors.js";
import { now } from "../core/sqlite.js";
import type { Project } from "../workspace/project.js";
import { newChangeId } from "./ids.js";
import { ChangeIndex } from "./index-db.js";
import { commitMessage } from "./message.js";
import { blobOfFile, HistoryRepo } from "./repo.js";
import type { Actor, Change } from "./schema.js";

/** The `tool` of the change that holds the project as its history began (never reverted). */
export const START_TOOL = "history";

/** Who made a write and through which call, as the pipeline knows it. */
export interface WriteOrigin {
  tool: string | null;
  session: string | null;
  profile: string | null;
  callId: string | null;
  /** The session's turn: the entry id of the user message that began it. */
  turn?: string | null;
}

/** A write the pipeline has started: its change id and what it may touch (null: anything). */
export interface PendingWrite {
  readonly id: string;
  readonly targets: readonly string[] | null;
}

/** What a write that ran reports, for its change. */
export interface WriteOutcome {
  summary: string;
  /** Project-relative paths it wrote (null: unknown, so the whole project is looked at). */
  targets: readonly string[] | null;
  /** True when it changed database rows (the row logs keep them under the change id). */
  rows: boolean;
}

/** The actor of a write: an agent when a profile or a session made it, else the user. */
export function actorOf(o: WriteOrigin): Actor {
  return o.session !== null || o.profile !== null ? "agent" : "user";
}

/** A path the history holds: inside the project, not its control area, not a `.git`. */
export function inHistory(path: string): boolean {
  const p = path.replace(/\\/g, "/").replace(/^\.\//, "");
  if (p === "" || p.startsWith("/") || p.startsWith("workspace/")) return false;
  const segments = p.split("/");
  return segments[0] !== ".nbook" && !segments.includes(".git") && !segments.includes("..");
}

/**
 * One project's history: the git repository of its files (`.nbook/history.git`, the project as
 * work tree) and the change index beside it. Writes are recorded in two steps around the write:
 * `begin` commits edits made outside NeuroBook to what the write may touch (so they are never
 * taken for the write's, nor lost by its revert), `finish` commits what the write changed.
 */
export class History {
  readonly repo: HistoryRepo;
  private indexDb: ChangeIndex | null = null;
  private ready: Promise<void> | null = null;
  /** Writes begun and not finished, in this process: their changes are not "outside edits". */
  private readonly pending = new Set<PendingWrite>();

  constructor(readonly project: Project) {
    this.repo = new HistoryRepo(join(project.root, ".nbook", "history.git"), project.root);
  }

  /** The history of a project, one per open project. */
  static of(project: Project): History {
    return project.resource("history", () => new History(project));
  }

  get indexPath(): string {
    return join(this.project.root, ".nbook", "history.sqlite");
  }

  get index(): ChangeIndex {
    this.indexDb ??= new ChangeIndex(this.indexPath);
    return this.indexDb;
  }

  /** Create the repository and its first commit (the project as it was) on first use. */
  open(): Promise<void> {
    this.ready ??= this.repo.serial(async () => {
      const fresh = !this.repo.exists();
      // An index of changes whose repository is gone would point at commits that no longer exist.
      if (fresh && existsSync(this.indexPath) && this.index.stats().changes > 0)
        throw new NbError(
          "io_error",
          "The history repository (.nbook/history.git) is missing; run `nbook history repair` to start it again",
        );
      await this.repo.init();
      if (fresh || (await this.repo.head()) === null) {
        await this.commitChange(null, null, {
          actor: "outside",
          tool: START_TOOL,
          summary: "The project as it was when its history began",
        });
      }
    });
    this.ready.catch(() => {
      this.ready = null;
    });
    return this.ready;
  }

  /** Start a write: record outside edits first, then hold its targets as in flight. */
  async begin(id: string, targets: readonly string[] | null): Promise<PendingWrite> {
    await this.open();
    const write: PendingWrite = { id, targets: targets?.filter(inHistory) ?? null };
    await this.repo.serial(() => this.recordOutsideLocked(write.targets));
    this.pending.add(write);
    return write;
  }

  /** Finish a write: commit what it changed as its change (none when it changed nothing). */
  async finish(
    write: PendingWrite,
    origin: WriteOrigin,
    outcome: WriteOutcome,
    as: { actor: Actor; reverts: string[] } | null = null,
  ): Promise<Change | null> {
    this.pending.delete(write);
    const targets = outcome.targets === null ? null : outcome.targets.filter(inHistory);
    // A write of database rows alone names no file: there is nothing of it to look for in the tree.
    const paths = targets ?? (outcome.rows ? [] : null);
    return this.repo.serial(async () => {
      // A write refused or failed before touching its files leaves them as the head has them:
      // hashing them here spares a git run for each of those.
      if (paths?.length && !outcome.rows && (await this.maybeChanged(paths)).length === 0) return null;
      return this.commitChange(
        write.id,
        paths,
        { ...origin, actor: as?.actor ?? actorOf(origin), summary: outcome.summary, reverts: as?.reverts },
        outcome.rows,
      );
    });
  }

  /** Forget a write that changed nothing. */
  drop(write: PendingWrite): void {
    this.pending.delete(write);
  }

  /** Record whatever changed in the project since the last change, as "outside edits". */
  async recordOutside(): Promise<Change | null> {
    await this.open();
    return this.repo.serial(() => this.recordOutsideLocked(null));
  }

  /**
   * Outside edits among `paths` (every path when null). While a write of unknown reach runs
   * (bash), nothing is taken for outside: what changed may be its doing, and it records it.
   */
  private async recordOutsideLocked(paths: readonly string[] | null): Promise<Change | null> {
    const pending = [...this.pending];
    if (pending.some((w) => w.targets === null)) return null;
    const busy = pending.flatMap((w) => w.targets ?? []);
    const scope = paths === null ? null : await this.maybeChanged(paths.filter((p) => !busy.includes(p)));
    if (scope !== null && scope.length === 0) return null;
    const dirty = await this.repo.dirty(scope, busy);
    if (dirty.length === 0) return null;
    return this.commitChange(
      null,
      scope === null ? null : dirty,
      {
        actor: "outside",
        summary: `Edits made outside NeuroBook: ${describePaths(dirty)}`,
      },
      false,
      busy,
    );
  }

  /**
   * The paths whose content may differ from the head's: a file whose blob id (hashed here) is
   * the head's is unchanged, and git need not look at it. Only a file the head lacks, or whose
   * content differs, is left for `git status` to confirm.
   */
  private async maybeChanged(paths: readonly string[]): Promise<string[]> {
    const blobs = await this.repo.headBlobs();
    if (blobs === null) return [...paths];
    const out: string[] = [];
    for (const p of paths) {
      const known = blobs.get(p);
      if (known === undefined || (await blobOfFile(join(this.project.root, p))) !== known) out.push(p);
    }
    return out;
  }

  /**
   * Commit `paths` (null: all) as one change and index it; a change of rows alone is indexed
   * without a commit. Runs inside the repository's queue.
   */
  async commitChange(
    id: string | null,
    paths: readonly string[] | null,
    who: Partial<WriteOrigin> & { actor: Actor; summary: string; reverts?: string[] },
    rows = false,
    excluding: readonly string[] = [],
  ): Promise<Change | null> {
    const change: Change = {
      id: id ?? newChangeId(),
      time: now(),
      actor: who.actor,
      session: who.session ?? null,
      profile: who.profile ?? null,
      tool: who.tool ?? null,
      callId: who.callId ?? null,
      turn: who.turn ?? null,
      targets: null,
      summary: who.summary,
      commit: null,
      reverts: who.reverts ?? null,
    };
    const made = await this.repo.commit(paths, commitMessage(change), excluding);
    if (!made && !rows) return null;
    const recorded: Change = {
      ...change,
      targets: made ? made.paths : [],
      commit: made?.commit ?? null,
    };
    this.index.add(recorded);
    return recorded;
  }

  /** Let go of the index and forget the repository was opened (a repair replaces them). */
  reset(): void {
    this.close();
    this.ready = null;
  }

  close(): void {
    this.indexDb?.close();
    this.indexDb = null;
  }
}

/** A few of the paths, for a one-line summary. */
export function describePaths(paths: readonly string[]): string {
  const shown = paths.slice(0, 3).join(", ");
  return paths.length > 3 ? `${shown} and ${paths.length - 3} more` : shown;
}
