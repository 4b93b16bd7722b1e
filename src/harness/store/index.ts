import { join } from "node:path";
import type Database from "better-sqlite3";
import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { parseOrThrow } from "../../core/validate.js";
import { describeRunner, runnerAlive, thisRunner } from "../../jobs/process.js";
import { JobTable } from "../../jobs/store.js";
import type { Limit } from "../../models/budgets.js";
import type { Workspace } from "../../workspace/workspace.js";
import { ApprovalTable } from "./approvals.js";
import { type SessionBudget, SessionBudgetTable } from "./budgets.js";
import { type ModelCall, ModelCallTable, type NewModelCall, type UsageTotals } from "./calls.js";
import { openAgentDb } from "./db.js";
import { forkedInput } from "./fork.js";
import { EntryTree } from "./history.js";
import { type AgentLink, LinkTable } from "./links.js";
import { type EntryPage, EntryPages, type PageQuery, PageQuerySchema } from "./pages.js";
import { QueueTable } from "./queues.js";
import { removeSession } from "./remove.js";
import type {
  Approval,
  Entry,
  EntryInput,
  EntryOf,
  PendingCall,
  QueueItem,
  QueueKind,
  Session,
  SessionStatus,
  Task,
} from "./schema.js";
import { type CreateSessionOptions, type ListSessionsOptions, SessionTable } from "./sessions.js";

export type { SessionBudget } from "./budgets.js";
export { SessionBudgetSchema } from "./budgets.js";
export type { ModelCall, NewModelCall, UsageTotals } from "./calls.js";
export { dayOf, ModelCallSchema, UsageTotalsSchema } from "./calls.js";
export type { AgentLink } from "./links.js";
export type { EntryPage, PageQuery } from "./pages.js";
export { EntryPageSchema, MAX_PAGE, PageQuerySchema } from "./pages.js";
export type * from "./schema.js";
export { ENTRY_DATA, ENTRY_KINDS, TaskSchema } from "./schema.js";
export type { CreateSessionOptions, ListSessionsOptions } from "./sessions.js";
export {
  exportJsonl,
  exportMarkdown,
  oneLine,
  renderEntries,
  renderTranscript,
  transcriptHeader,
} from "./transcript.js";
export { transcriptChunks } from "./transcript-stream.js";

/** The file the session store lives in. */
export function agentDbPath(workspace: Pick<Workspace, "nbookDir">): string {
  return join(workspace.nbookDir, "agent.sqlite");
}

/**
 * The durable session store (`<workspace>/.nbook/agent.sqlite`): sessions, their append-only entry
 * trees with a leaf pointer, approvals, queues and per-branch task lists. One instance holds one
 * connection; several processes may open the same file (WAL, busy timeout).
 */
export class SessionStore {
  /** This process as the runner of the sessions it runs (`host:pid:start`, as a job's runner). */
  readonly runner = thisRunner();
  private readonly sessions: SessionTable;
  private readonly tree: EntryTree;
  private readonly approvalTable: ApprovalTable;
  private readonly queueTable: QueueTable;
  /** Background jobs and their flow-back deliveries (src/jobs runs them). */
  readonly jobs: JobTable;
  private readonly links: LinkTable;
  private readonly pages: EntryPages;
  private readonly callLog: ModelCallTable;
  private readonly budgets: SessionBudgetTable;

  private constructor(private readonly db: Database.Database) {
    this.sessions = new SessionTable(db, this.runner);
    this.links = new LinkTable(db);
    this.callLog = new ModelCallTable(db);
    this.budgets = new SessionBudgetTable(db);
    this.approvalTable = new ApprovalTable(db);
    this.queueTable = new QueueTable(db);
    this.jobs = new JobTable(db, this.queueTable);
    this.tree = new EntryTree(db, this.approvalTable, this.queueTable);
    this.pages = new EntryPages(db);
  }

  /** Open (creating if needed) a store file. */
  static open(file: string): SessionStore {
    return new SessionStore(openAgentDb(file));
  }

  /** Open the workspace's store. */
  static forWorkspace(workspace: Pick<Workspace, "nbookDir">): SessionStore {
    return SessionStore.open(agentDbPath(workspace));
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  // ── sessions ──────────────────────────────────────────────────────────────

  /**
   * Create a session; `initial` is validated against the profile's schema. With a
   * `parentSessionId`, the parent's link to the new child is recorded in the same transaction.
   */
  createSession(opts: CreateSessionOptions): Session {
    if (!opts.parentSessionId) return this.sessions.create(opts);
    const parent = opts.parentSessionId;
    return this.db
      .transaction(() => {
        const child = this.sessions.create(opts);
        this.links.insert(Number(this.sessions.getRow(parent).id), Number(child.id));
        return child;
      })
      .immediate();
  }

  // ── model calls: manifests, usage, cost ────────────────────────────────

  /** Record one model call of a session (numbered from 1 in the session). */
  recordCall(sessionId: string, call: NewModelCall): ModelCall {
    const session = this.sessions.get(sessionId);
    return this.callLog.record(Number(session.id), session.project, call);
  }

  /** A session's model calls in order. */
  calls(sessionId: string): ModelCall[] {
    return this.callLog.list(Number(this.sessions.get(sessionId).id));
  }

  /** Model call `seq` of a session; `not_found` when none. */
  call(sessionId: string, seq: number): ModelCall {
    return this.callLog.get(Number(this.sessions.get(sessionId).id), seq);
  }

  /** A session's usage and cost, summed. */
  sessionUsage(sessionId: string): UsageTotals {
    return this.callLog.sessionTotals(Number(this.sessions.get(sessionId).id));
  }

  /** The budget the user set for this session (replacing the config's `budgets.session`), or null. */
  sessionBudget(sessionId: string): SessionBudget | null {
    return this.budgets.get(Number(this.sessions.get(sessionId).id));
  }

  /** Set the session's own budget: a limit, or null to lift it (no session limit). */
  setSessionBudget(sessionId: string, limit: Limit | null): SessionBudget {
    return this.budgets.set(Number(this.sessions.get(sessionId).id), limit);
  }

  /** Drop the session's own budget: the config's applies again. */
  clearSessionBudget(sessionId: string): void {
    this.budgets.clear(Number(this.sessions.get(sessionId).id));
  }

  /** What a project's sessions (null: sessions outside any project) used on a UTC day (YYYY-MM-DD). */
  projectDayUsage(project: string | null, day: string): UsageTotals {
    return this.callLog.projectDayTotals(project, day);
  }

  // ── collaboration links ───────────────────────────────────────────────────

  /** The link that created a session (detached or not); null for a session no agent created. */
  linkOf(childId: string): AgentLink | null {
    return this.links.ofChild(childId);
  }

  /** The children a session created: live links only, unless `includeDetached`. */
  childLinks(parentId: string, includeDetached = false): AgentLink[] {
    return this.links.ofParent(parentId, includeDetached);
  }

  /** Drop a parent's link to a child (the child session stays); `conflict` when already detached. */
  detachLink(childId: string): AgentLink {
    return this.links.detach(childId);
  }

  /** A session; `not_found` when none. */
  session(id: string): Session {
    return this.sessions.get(id);
  }

  /** Sessions, most recently updated first. */
  listSessions(opts: ListSessionsOptions = {}): Session[] {
    return this.sessions.list(opts);
  }

  /** Change the title, status or pinned model of a session. */
  updateSession(
    id: string,
    patch: { title?: string; status?: SessionStatus; model?: string | null },
  ): Session {
    return this.sessions.update(id, patch);
  }

  /**
   * Archive a session (it takes no more messages, leaves the default lists, stays readable and
   * exportable) or restore it to idle. `conflict` while a live process runs it or it waits on the
   * user (settle that first, so no approval is left behind an archived session).
   */
  setArchived(id: string, archived: boolean): Session {
    if (this.liveRunner(id) !== null)
      throw new NbError("conflict", `Session ${id} is running: abort it before archiving it`);
    const s = this.session(id);
    if (s.status === "waiting")
      throw new NbError("conflict", `Session ${id} waits on an approval or a question: settle it first`);
    if (archived === (s.status === "archived")) return s;
    return this.sessions.update(id, { status: archived ? "archived" : "idle" });
  }

  /** Delete an archived session that nothing depends on (remove.ts says what is refused); `conflict` otherwise. */
  deleteSession(id: string): void {
    removeSession(this.db, id);
  }

  /** Set a session's status (idle, running, waiting, archived); running records this process as its runner. */
  setStatus(id: string, status: SessionStatus): Session {
    return this.sessions.update(id, { status });
  }

  // ── runners ───────────────────────────────────────────────────────────────

  /**
   * Mark a session running in this process; `conflict` when another process that is still alive
   * runs it, so one session is never run by two processes at once.
   */
  claimRun(id: string): void {
    this.db
      .transaction(() => {
        const holder = this.liveRunner(id);
        if (holder && holder !== this.runner) throw new NbError("conflict", runningElsewhere(id, holder));
        this.sessions.update(id, { status: "running" });
      })
      .immediate();
  }

  /**
   * The live process running a session (this one counts), or null when none does. A session left
   * running by a process that is gone (killed, crashed) is closed first: its open run ends aborted,
   * saying why, and the session is idle again, so it can go on.
   */
  liveRunner(id: string): string | null {
    if (this.sessions.getRow(id).status !== "running") return null;
    const runner = this.sessions.runnerOf(id);
    if (runner !== null && (runner === this.runner || runnerAlive(runner))) return runner;
    this.db
      .transaction(() => {
        // Another process may have closed it (or started it again) since the look above.
        if (this.sessions.getRow(id).status !== "running" || this.sessions.runnerOf(id) !== runner) return;
        const runId = openRunId(this.activePath(id));
        if (runId) {
          const message = `Interrupted: the nbook process running it${runner ? ` (${describeRunner(runner)})` : ""} ended before the run finished.`;
          this.tree.commit(id, [
            { kind: "run_error", data: { runId, error: { code: "aborted", message } } },
            { kind: "run_end", data: { runId, status: "aborted", finalMessage: "" } },
          ]);
        }
        this.sessions.update(id, { status: "idle" });
      })
      .immediate();
    return this.liveRunner(id);
  }

  /** Close every session left running by a process that is gone (see liveRunner); returns their ids. */
  recoverInterrupted(): string[] {
    return this.sessions
      .list({ status: "running" })
      .filter((s) => this.liveRunner(s.id) === null)
      .map((s) => s.id);
  }

  // ── history ───────────────────────────────────────────────────────────────

  /** Append one entry under the leaf and move the leaf to it (O(1): the history is never re-read). */
  append(sessionId: string, entry: EntryInput): Entry {
    return this.tree.commit(sessionId, [entry])[0];
  }

  /**
   * Commit one step (an assistant message and the results of its calls, plus any approval
   * requests, task-list changes, markers) as one transaction: all entries or none.
   */
  commitStep(sessionId: string, entries: EntryInput[]): Entry[] {
    return this.tree.commit(sessionId, entries);
  }

  /** Move the leaf to an earlier entry (null = before the first): the next append branches there. */
  setLeaf(sessionId: string, entryId: string | null): Session {
    this.tree.setLeaf(sessionId, entryId);
    return this.sessions.get(sessionId);
  }

  /**
   * Start a new session from one entry of a session (any branch): a copy of the path root → that
   * entry, with the same profile, project, model and initial values, idle, its leaf at the copy.
   */
  forkSession(sessionId: string, atEntryId: string): Session {
    const source = this.sessions.get(sessionId);
    const path = this.pathTo(sessionId, atEntryId);
    const initialMode = this.db
      .prepare("SELECT initial_mode FROM sessions WHERE id = ?")
      .pluck()
      .get(Number(source.id)) as Session["mode"];
    return this.db
      .transaction(() => {
        const fork = this.sessions.create({
          // `initial` was validated by the profile when the source session was created.
          profile: { key: source.profileKey, initial: z.record(z.string(), z.unknown()) },
          project: source.project,
          title: `${source.title || "(untitled)"} (fork of #${source.id} at ${atEntryId})`,
          mode: initialMode,
          model: source.model,
          initial: source.initial,
        });
        const ids = new Map<string, string>();
        for (const e of path) {
          const [copy] = this.tree.commit(fork.id, [forkedInput(e, ids)]);
          ids.set(e.id, copy.id);
        }
        return this.sessions.get(fork.id);
      })
      .immediate();
  }

  /** The entries root → `entryId` of a session; `not_found` when the entry is not the session's. */
  pathTo(sessionId: string, entryId: string): Entry[] {
    const key = this.sessions.get(sessionId).id;
    const out: Entry[] = [];
    let at: Entry | null = this.entryOf(entryId, key);
    while (at) {
      out.push(at);
      at = at.parentId === null ? null : this.tree.get(at.parentId);
    }
    return out.reverse();
  }

  private entryOf(entryId: string, sessionId: string): Entry {
    let e: Entry | null = null;
    try {
      e = this.tree.get(entryId);
    } catch (err) {
      if (!(err instanceof NbError)) throw err;
    }
    if (!e || e.sessionId !== sessionId)
      throw new NbError("not_found", `No entry ${entryId} in session ${sessionId}`, {
        fields: [{ pointer: "/entry", message: "no such entry in this session" }],
      });
    return e;
  }

  /** The active path root → leaf. */
  activePath(sessionId: string): Entry[] {
    return this.tree.activePath(this.sessions.get(sessionId));
  }

  /** The active path from entry `from` (on it) to the leaf: reads only those entries. */
  pathFrom(sessionId: string, from: string): Entry[] {
    return this.tree.pathFrom(this.sessions.get(sessionId), from);
  }

  /**
   * The latest entry of `kind` on the active path, or null; `before`: among those older than
   * that entry; `contains`: whose stored data holds that text. An index lookup per branch point.
   */
  latestOnPath(
    sessionId: string,
    kind: Entry["kind"],
    opts: { before?: string; contains?: string } = {},
  ): Entry | null {
    return this.tree.latestOnPath(this.sessions.get(sessionId), kind, opts);
  }

  /**
   * One page of the active branch, root first: the newest entries, those before an entry, or
   * those after one (see EntryPages). Reads only the page, however long the session.
   */
  page(sessionId: string, query: PageQuery = {}): EntryPage {
    const q = parseOrThrow(PageQuerySchema, query, "page query");
    const s = this.sessions.getRow(sessionId);
    return this.pages.page(s.id, s.leaf_id, q);
  }

  /**
   * The entries from the latest assistant message on the active branch to the leaf (where the
   * requests for its open calls are), read back by the page: not the whole branch.
   */
  sinceLastAssistant(sessionId: string): Entry[] {
    const out: Entry[] = [];
    let p = this.page(sessionId);
    for (;;) {
      const at = p.entries.findLastIndex((e) => e.kind === "assistant");
      out.unshift(...p.entries.slice(Math.max(at, 0)));
      if (at >= 0 || p.older === null) return out;
      p = this.page(sessionId, { before: p.older });
    }
  }

  /** Model calls the session has recorded over all its branches, from its counter (no history read). */
  modelCalls(sessionId: string): number {
    return this.tree.modelCalls(this.sessions.getRow(sessionId).id);
  }

  /** Every entry of a session, all branches, in append order. */
  allEntries(sessionId: string): Entry[] {
    this.sessions.getRow(sessionId);
    return this.tree.all(sessionId);
  }

  /** One entry; `not_found` when none. */
  entry(entryId: string): Entry {
    return this.tree.get(entryId);
  }

  /** Entries directly under one entry (several = a branch point). */
  children(entryId: string): Entry[] {
    return this.tree.children(entryId);
  }

  /** Tool calls on the active path still waiting for a result (suspended, or cut off by a crash). */
  pendingToolCalls(sessionId: string): PendingCall[] {
    return this.tree.pendingCalls(this.sessions.get(sessionId));
  }

  /**
   * Close every pending call with an `aborted` error result (and reject its pending approval),
   * in one transaction, so the session can continue after an abort or a crash. Returns the entries.
   */
  abortPendingCalls(sessionId: string, message = "The call was aborted before it finished"): Entry[] {
    const pending = this.pendingToolCalls(sessionId);
    if (!pending.length) return [];
    const open = new Map(this.pendingApprovals(sessionId).map((a) => [a.callId, a] as const));
    const entries: EntryInput[] = [];
    for (const { call } of pending) {
      const approval = open.get(call.id);
      if (approval) {
        entries.push({
          kind: "approval_decision",
          data: { approvalId: approval.id, callId: call.id, approved: false, reason: message },
        });
      }
      entries.push({
        kind: "tool_result",
        data: {
          callId: call.id,
          key: call.key,
          ok: false,
          text: message,
          error: { code: "aborted", message },
        },
      });
    }
    return this.tree.commit(sessionId, entries);
  }

  /** Record a mode change as an entry; null (nothing written) when the session is already in `to`. */
  changeMode(
    sessionId: string,
    to: Session["mode"],
    by: "user" | "agent",
    reason?: string,
  ): EntryOf<"mode_change"> | null {
    const from = this.sessions.get(sessionId).mode;
    if (from === to) return null;
    const data = reason === undefined ? { from, to, by } : { from, to, by, reason };
    return this.append(sessionId, { kind: "mode_change", data }) as EntryOf<"mode_change">;
  }

  /** The task list on the active path (it follows branches). */
  tasks(sessionId: string): Task[] {
    return this.tree.tasks(this.sessions.get(sessionId));
  }

  // ── approvals ─────────────────────────────────────────────────────────────

  /** One approval (its id is the id of its approval_request entry); `not_found` when none. */
  approval(id: string): Approval {
    return this.approvalTable.get(id);
  }

  /** Pending approvals of one session, or of every session, oldest first. */
  pendingApprovals(sessionId?: string): Approval[] {
    return this.approvalTable.pending(
      sessionId === undefined ? undefined : this.sessions.getRow(sessionId).id,
    );
  }

  /** Every approval of a session, oldest first. */
  approvals(sessionId: string): Approval[] {
    return this.approvalTable.all(this.sessions.getRow(sessionId).id);
  }

  /**
   * Settle a pending approval: appends an approval_decision entry and updates the approval in one
   * transaction. `conflict` when it is already settled. The tool result is the caller's next step.
   */
  settleApproval(
    approvalId: string,
    decision: { approved: boolean; reason?: string },
  ): {
    approval: Approval;
    entry: EntryOf<"approval_decision">;
  } {
    const a = this.approvalTable.get(approvalId);
    const data =
      decision.reason === undefined
        ? { approvalId: a.id, callId: a.callId, approved: decision.approved }
        : { approvalId: a.id, callId: a.callId, approved: decision.approved, reason: decision.reason };
    const entry = this.append(a.sessionId, {
      kind: "approval_decision",
      data,
    }) as EntryOf<"approval_decision">;
    return { approval: this.approvalTable.get(approvalId), entry };
  }

  // ── queues ────────────────────────────────────────────────────────────────

  /** Add an input at the end of a session's queue of that kind. */
  enqueue(sessionId: string, kind: QueueKind, text: string): QueueItem {
    return this.queueTable.enqueue(this.sessions.getRow(sessionId).id, kind, text);
  }

  /** Unconsumed queue items of a session, in order (one kind, or all). */
  queued(sessionId: string, kind?: QueueKind): QueueItem[] {
    return this.queueTable.open(this.sessions.getRow(sessionId).id, kind);
  }

  /**
   * Mark a queue item consumed without writing an entry. To deliver an item as a message, append a
   * `user` entry carrying its `queueItemId` instead: message and consumption then commit together.
   */
  consumeQueued(sessionId: string, itemId: string): QueueItem {
    this.queueTable.consume(this.sessions.getRow(sessionId).id, itemId, null);
    return this.queueTable.get(itemId);
  }

  /** Drop the unconsumed items of a session's queue (one kind, or all); returns how many. */
  clearQueue(sessionId: string, kind?: QueueKind): number {
    return this.queueTable.clear(this.sessions.getRow(sessionId).id, kind);
  }
}

/** What refuses a run of a session another live process runs. */
export function runningElsewhere(id: string, runner: string): string {
  const where =
    runner === thisRunner() ? "this nbook process" : `another nbook process (${describeRunner(runner)})`;
  return `Session ${id} is running in ${where}; continue it once that run has ended`;
}

/** The run id of the active path's last run, when it has not ended. */
function openRunId(path: readonly Entry[]): string | null {
  for (let i = path.length - 1; i >= 0; i--) {
    const e = path[i];
    if (e.kind === "run_end") return null;
    if (e.kind === "run_start") return e.data.runId;
  }
  return null;
}
