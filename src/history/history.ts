import { existsSync } from "node:fs";
import { join } from "node:path";
import { NbError } from "../core/errors.js";
import { now } from "../core/sqlite.js";
import type { Project } from "../workspace/project.js";
import { removeEmptiedFolders } from "./folders.js";
import { newChangeId } from "./ids.js";
import { ChangeIndex } from "./index-db.js";
import { commitMessage, parseCommitMessage } from "./message.js";
import { HistoryRepo } from "./repo.js";
import type { Actor, Change } from "./schema.js";
import type { HeadTree } from "./tree.js";
import { type FileContent, type WorkFile, WorkTree } from "./worktree.js";

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

/**
 * A whole-project look: the head tree it compared the work tree with (this process's copy, which
 * its own commits keep) and the paths it found differing but left open (excluded).
 */
interface Look {
  tree: HeadTree;
  open: Set<string>;
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
 * `begin` commits edits made outside NeuroBook anywhere in the project (so they are never taken
 * for the write's, nor lost by its revert), `finish` commits what the write changed.
 */
export class History {
  readonly repo: HistoryRepo;
  private indexDb: ChangeIndex | null = null;
  private ready: Promise<void> | null = null;
  private tree: WorkTree | null = null;
  /** Writes begun and not finished, in this process: their changes are not "outside edits". */
  private readonly pending = new Set<PendingWrite>();
  /** The last whole-project look, the basis of the next (see `changed`). */
  private looked: Look | null = null;

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

  /** The work tree's files as last seen (stat and blob), kept in the change index between processes. */
  get worktree(): WorkTree {
    this.tree ??= new WorkTree(this.project.root, this.index.seenStore());
    return this.tree;
  }

  /**
   * Create the repository and its first commit (the project as it was) on first use. A head
   * commit the index lacks (a process that died between moving the branch and writing the
   * index row) is indexed from its trailers.
   */
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
      const head = await this.repo.head();
      if (head === null) {
        await this.commitChange(
          null,
          null,
          { actor: "outside", tool: START_TOOL, summary: "The project as it was when its history began" },
          false,
          [],
          true,
        );
      } else if (this.index.byCommit(head) === null) await this.indexOrphan(head);
    });
    this.ready.catch(() => {
      this.ready = null;
    });
    return this.ready;
  }

  private async indexOrphan(commit: string): Promise<void> {
    const message = (await this.repo.git.run(["log", "-1", "--format=%B", commit])).stdout.toString("utf8");
    const change = parseCommitMessage(message, commit, []);
    if (!change) return;
    const paths = await this.repo.changedPaths(await this.repo.parentOf(commit), commit);
    this.index.add({ ...change, targets: paths });
  }

  /** Start a write: record outside edits anywhere in the project first, then hold its targets as in flight. */
  async begin(id: string, targets: readonly string[] | null): Promise<PendingWrite> {
    await this.open();
    const write: PendingWrite = { id, targets: targets?.filter(inHistory) ?? null };
    await this.repo.serial(() => this.recordOutsideLocked(write.targets ?? []));
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
      const change = await this.commitChange(
        write.id,
        paths,
        { ...origin, actor: as?.actor ?? actorOf(origin), summary: outcome.summary, reverts: as?.reverts },
        outcome.rows,
      );
      // A revert that removed the files an import (or any change) made removes the folders it emptied too.
      if (as?.actor === "revert" && change?.commit)
        removeEmptiedFolders(
          this.project.root,
          this.project.realRoot,
          await this.removedBy(change.targets ?? []),
        );
      return change;
    });
  }

  /** Those of these paths the head no longer has. */
  private async removedBy(paths: readonly string[]): Promise<string[]> {
    const head = await this.repo.headTree();
    return paths.filter((p) => head.get(p) === undefined);
  }

  /** Forget a write that changed nothing. */
  drop(write: PendingWrite): void {
    this.pending.delete(write);
  }

  /** Record whatever changed in the project since the last change, as "outside edits". */
  async recordOutside(): Promise<Change | null> {
    await this.open();
    return this.repo.serial(() => this.recordOutsideLocked([]));
  }

  /**
   * Whatever changed anywhere in the project since the last record, less the targets of writes
   * in flight in this process. While a write of unknown reach runs (bash), nothing is taken for
   * outside: what changed may be its doing, and it records it. `targets`: those of the write
   * about to run, looked at directly.
   */
  private async recordOutsideLocked(targets: readonly string[]): Promise<Change | null> {
    const pending = [...this.pending];
    if (pending.some((w) => w.targets === null)) return null;
    const busy = pending.flatMap((w) => w.targets ?? []);
    const who = { actor: "outside" as const, summary: "Edits made outside NeuroBook" };
    return this.commitChange(null, null, who, false, busy, false, targets);
  }

  /**
   * The paths among `paths` (every file of the project when null, less `excluding`) whose
   * content or mode differs from the head's: a stat of each, and a read only of what moved.
   * `also`: paths a whole-project look must see for itself (a write's targets), watch or not.
   * A whole-project look after another on the same head tree (one no other process moved, kept
   * by this process's own commits of what it read) compares only the paths the scan saw touched
   * and those the last look left aside (excluded): O(change). Any other look compares everything.
   */
  private async changed(
    paths: readonly string[] | null,
    excluding: readonly string[],
    also: readonly string[],
  ): Promise<{ files: Map<string, FileContent | null>; look: Look | null }> {
    const head = await this.repo.headTree();
    const tree = this.worktree;
    const skip = new Set(excluding);
    const differs = (p: string, now: WorkFile | null) => {
      const was = head.get(p);
      return now === null
        ? was !== undefined
        : was === undefined || was.mode !== now.mode || was.sha !== now.sha;
    };
    let candidates: Iterable<string> = paths ?? [];
    let look: Look | null = null;
    if (paths === null) {
      const { files, touched } = await tree.scan(also);
      const since = this.looked?.tree === head ? this.looked : null;
      // Until this look is committed, a failure must not leave a stale basis for the next one.
      this.looked = null;
      const moved = new Set<string>();
      if (touched !== null && since !== null) {
        for (const p of [...touched, ...since.open]) if (differs(p, files.get(p) ?? null)) moved.add(p);
      } else {
        for (const [p, now] of files) if (differs(p, now)) moved.add(p);
        for (const [p] of head.files()) if (!files.has(p)) moved.add(p);
      }
      look = { tree: head, open: new Set([...moved].filter((p) => skip.has(p))) };
      candidates = moved;
    }
    // Each candidate is read once, and what was read is what gets committed.
    const out = new Map<string, FileContent | null>();
    for (const p of candidates) {
      if (skip.has(p)) continue;
      const now = tree.read(p);
      if (differs(p, now)) out.set(p, now && { mode: now.mode, data: now.data, sha: now.sha });
    }
    tree.flush();
    return { files: out, look };
  }

  /**
   * Commit what changed among `paths` (null: the whole project, less `excluding`) as one change
   * and index it; a change of rows alone is indexed without a commit. Runs inside the
   * repository's queue. `empty`: the first commit, made even of an empty project; `also`: see `changed`.
   */
  async commitChange(
    id: string | null,
    paths: readonly string[] | null,
    who: Partial<WriteOrigin> & { actor: Actor; summary: string; reverts?: string[] },
    rows = false,
    excluding: readonly string[] = [],
    empty = false,
    also: readonly string[] = [],
  ): Promise<Change | null> {
    const { files, look } = await this.changed(paths, excluding, also);
    if (files.size === 0 && !rows && !empty) {
      this.looked = look ?? this.looked;
      return null;
    }
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
      summary:
        who.actor === "outside" && who.tool !== START_TOOL
          ? `${who.summary}: ${describePaths([...files.keys()])}`
          : who.summary,
      commit: null,
      reverts: who.reverts ?? null,
    };
    const made = await this.repo.commitFiles(files, commitMessage(change), empty);
    this.looked = look ?? this.looked;
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
    this.looked = null;
  }

  close(): void {
    this.indexDb?.close();
    this.indexDb = null;
    this.tree?.close();
    this.tree = null;
  }
}

/** A few of the paths, for a one-line summary. */
export function describePaths(paths: readonly string[]): string {
  const shown = paths.slice(0, 3).join(", ");
  return paths.length > 3 ? `${shown} and ${paths.length - 3} more` : shown;
}
