import { randomUUID } from "node:crypto";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { type ErrorInfo, NbError } from "../../core/errors.js";
import type { Mode } from "../../core/modes.js";
import { openVersionedDb } from "../../core/sqlite.js";
import type { Workspace } from "../../workspace/workspace.js";
import type { Budget } from "../config.js";
import type { Phase } from "../definition.js";
import type { ActivityRequest, FanOut, JournalEntry, Progress } from "../sandbox/protocol.js";
import { type RunUsage, WORKFLOWS_DB_SQL, WORKFLOWS_DB_VERSION, type WorkflowRunStatus } from "./schema.js";

export type { RunUsage, WorkflowRunStatus } from "./schema.js";

/** A workflow run as stored. */
export interface RunRecord {
  id: string;
  workflowKey: string;
  title: string;
  /** Where the script came from: the catalog file, or `(inline)`. */
  file: string;
  /** The script the run executes (its own copy: editing the file later does not change the run). */
  source: string;
  phases: Phase[];
  args: unknown;
  project: string | null;
  callerSessionId: string | null;
  model: string | null;
  /** The mode the participants run in (the caller's: a read-only caller gets read-only agents). */
  mode: Mode;
  status: WorkflowRunStatus;
  budget: Budget;
  concurrency: FanOut;
  usage: RunUsage;
  result: unknown;
  error: ErrorInfo | null;
  progress: Progress | null;
  logs: string[];
  cancelRequested: boolean;
  owner: string | null;
  createdAt: number;
  updatedAt: number;
  endedAt: number | null;
}

/** A question a waiting run asks the user. */
export interface PendingAsk {
  seq: number;
  /** The answer's key in `--answers`: the ask's own `key`, else `ask-<seq>`. */
  key: string;
  fp: string;
  spec: Record<string, unknown>;
}

/** One agent session a run created or acquired. */
export interface Participant {
  sessionId: string;
  profileKey: string;
  title: string;
  ephemeral: boolean;
  outputSchema: Record<string, unknown> | null;
  /** The model its invocations use unless one names another (checked against the visible list there). */
  model: string | null;
  tag: string | null;
}

/** A persistent agent kept under a tag across runs (wf.agents.acquire). */
export interface TaggedAgent {
  sessionId: string;
  outputSchema: Record<string, unknown> | null;
  model: string | null;
}

/** A journal row with its timing, for the activity timeline. */
export interface TimedEntry extends JournalEntry {
  pos: number;
  startedAt: number;
  endedAt: number;
}

/** The columns of a run that change while it runs. */
export type RunPatch = Partial<
  Pick<RunRecord, "status" | "result" | "error" | "progress" | "logs" | "usage" | "owner" | "cancelRequested">
>;

/** What starting a run takes. */
export type NewRun = Pick<
  RunRecord,
  | "workflowKey"
  | "title"
  | "file"
  | "source"
  | "phases"
  | "args"
  | "project"
  | "callerSessionId"
  | "model"
  | "mode"
  | "budget"
  | "concurrency"
>;

interface RunRow {
  id: string;
  workflow_key: string;
  title: string;
  file: string;
  source: string;
  phases: string;
  args: string;
  project: string | null;
  caller_session_id: string | null;
  model: string | null;
  mode: Mode;
  status: WorkflowRunStatus;
  budget: string;
  concurrency: string;
  usage: string;
  result: string | null;
  error: string | null;
  progress: string | null;
  logs: string;
  cancel_requested: number;
  owner: string | null;
  created_at: number;
  updated_at: number;
  ended_at: number | null;
}

const parse = (s: string | null) => (s === null ? null : JSON.parse(s));

function toRecord(r: RunRow): RunRecord {
  return {
    id: r.id,
    workflowKey: r.workflow_key,
    title: r.title,
    file: r.file,
    source: r.source,
    phases: JSON.parse(r.phases),
    args: JSON.parse(r.args),
    project: r.project,
    callerSessionId: r.caller_session_id,
    model: r.model,
    mode: r.mode,
    status: r.status,
    budget: JSON.parse(r.budget),
    concurrency: JSON.parse(r.concurrency),
    usage: JSON.parse(r.usage),
    result: parse(r.result),
    error: parse(r.error),
    progress: parse(r.progress),
    logs: JSON.parse(r.logs),
    cancelRequested: r.cancel_requested === 1,
    owner: r.owner,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    endedAt: r.ended_at,
  };
}

/** The file the workflow store lives in. */
export function workflowsDbPath(workspace: Pick<Workspace, "nbookDir">): string {
  return join(workspace.nbookDir, "workflows.sqlite");
}

/**
 * The durable workflow store (`<workspace>/.nbook/workflows.sqlite`): runs, their journals (one row
 * per completed activity, in completion order), pending asks, participants and tagged agents.
 */
export class WorkflowStore {
  private readonly stmts;

  private constructor(private readonly db: Database.Database) {
    this.stmts = {
      get: db.prepare("SELECT * FROM runs WHERE id = ?"),
      journal: db.prepare("SELECT * FROM journal WHERE run_id = ? ORDER BY pos"),
      nextPos: db.prepare("SELECT COALESCE(MAX(pos) + 1, 0) AS n FROM journal WHERE run_id = ?"),
      append: db.prepare(
        "INSERT INTO journal (run_id, pos, seq, kind, fp, ok, value, error, started_at, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      ),
    };
  }

  /** Open (creating if needed) the workspace's workflow store. */
  static forWorkspace(workspace: Pick<Workspace, "nbookDir">): WorkflowStore {
    return WorkflowStore.open(workflowsDbPath(workspace));
  }

  static open(file: string): WorkflowStore {
    return new WorkflowStore(
      openVersionedDb({
        what: "the workflow store",
        file,
        version: WORKFLOWS_DB_VERSION,
        sql: WORKFLOWS_DB_SQL,
      }),
    );
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /** Record a new run (status running). */
  createRun(run: NewRun): RunRecord {
    const id = `run_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
    const now = Date.now();
    this.db
      .prepare(
        `INSERT INTO runs (id, workflow_key, title, file, source, phases, args, project, caller_session_id, model, mode,
          status, budget, concurrency, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?)`,
      )
      .run(
        id,
        run.workflowKey,
        run.title,
        run.file,
        run.source,
        JSON.stringify(run.phases),
        JSON.stringify(run.args ?? {}),
        run.project,
        run.callerSessionId,
        run.model,
        run.mode,
        JSON.stringify(run.budget),
        JSON.stringify(run.concurrency),
        now,
        now,
      );
    return this.run(id);
  }

  /** One run; `not_found` when none. */
  run(id: string): RunRecord {
    const row = this.stmts.get.get(id) as RunRow | undefined;
    if (!row) throw new NbError("not_found", `No workflow run ${id}`);
    return toRecord(row);
  }

  /** Runs, most recently updated first (optionally of some statuses). */
  listRuns(opts: { status?: WorkflowRunStatus[]; limit?: number } = {}): RunRecord[] {
    const where = opts.status?.length ? `WHERE status IN (${opts.status.map(() => "?").join(",")})` : "";
    const rows = this.db
      .prepare(`SELECT * FROM runs ${where} ORDER BY updated_at DESC, id LIMIT ?`)
      .all(...(opts.status ?? []), opts.limit ?? 50) as RunRow[];
    return rows.map(toRecord);
  }

  /** Update a run's columns (JSON values are serialised) and return it as stored. */
  update(id: string, patch: RunPatch): RunRecord {
    this.patch(id, patch);
    return this.run(id);
  }

  /** Update a run's columns without reading it back. */
  private patch(id: string, patch: RunPatch): void {
    const sets: string[] = ["updated_at = ?"];
    const values: unknown[] = [Date.now()];
    const json = (col: string, v: unknown) => {
      sets.push(`${col} = ?`);
      values.push(v === null ? null : JSON.stringify(v));
    };
    if (patch.status !== undefined) {
      sets.push("status = ?");
      values.push(patch.status);
      if (patch.status === "completed" || patch.status === "failed" || patch.status === "cancelled") {
        sets.push("ended_at = ?");
        values.push(Date.now());
      }
    }
    if (patch.result !== undefined) json("result", patch.result);
    if (patch.error !== undefined) json("error", patch.error);
    if (patch.progress !== undefined) json("progress", patch.progress);
    if (patch.logs !== undefined) json("logs", patch.logs);
    if (patch.usage !== undefined) json("usage", patch.usage);
    if (patch.owner !== undefined) {
      sets.push("owner = ?");
      values.push(patch.owner);
    }
    if (patch.cancelRequested !== undefined) {
      sets.push("cancel_requested = ?");
      values.push(patch.cancelRequested ? 1 : 0);
    }
    this.db.prepare(`UPDATE runs SET ${sets.join(", ")} WHERE id = ?`).run(...values, id);
  }

  /**
   * Take ownership of a run for this process, unless a live process owns it: `isAlive` decides
   * about another owner. Atomic, so two processes cannot both drive one run.
   */
  claim(id: string, owner: string, isAlive: (other: string) => boolean): boolean {
    return this.db
      .transaction(() => {
        const row = this.stmts.get.get(id) as RunRow | undefined;
        if (!row) throw new NbError("not_found", `No workflow run ${id}`);
        if (row.owner && row.owner !== owner && isAlive(row.owner)) return false;
        this.db.prepare("UPDATE runs SET owner = ? WHERE id = ?").run(owner, id);
        return true;
      })
      .immediate();
  }

  /** The run's journal in completion order. */
  journal(runId: string): JournalEntry[] {
    return this.timeline(runId).map(({ seq, kind, fp, ok, value, error }) =>
      ok ? { seq, kind, fp, ok, value } : { seq, kind, fp, ok, error },
    );
  }

  /** The journal with positions and times (the activity timeline). */
  timeline(runId: string): TimedEntry[] {
    const rows = this.stmts.journal.all(runId) as Array<{
      pos: number;
      seq: number;
      kind: string;
      fp: string;
      ok: number;
      value: string | null;
      error: string | null;
      started_at: number;
      ended_at: number;
    }>;
    return rows.map((r) => ({
      pos: r.pos,
      seq: r.seq,
      kind: r.kind,
      fp: r.fp,
      ok: r.ok === 1,
      ...(r.ok === 1 ? { value: parse(r.value) } : { error: parse(r.error) }),
      startedAt: r.started_at,
      endedAt: r.ended_at,
    }));
  }

  /** Append completed activities in order, in one transaction (plus any run patch, e.g. usage). */
  appendJournal(
    runId: string,
    entries: ReadonlyArray<JournalEntry & { startedAt?: number; endedAt?: number }>,
    patch?: RunPatch,
  ): void {
    if (!entries.length && !patch) return;
    this.db
      .transaction(() => {
        let pos = (this.stmts.nextPos.get(runId) as { n: number }).n;
        const now = Date.now();
        for (const e of entries) {
          this.stmts.append.run(
            runId,
            pos++,
            e.seq,
            e.kind,
            e.fp,
            e.ok ? 1 : 0,
            e.ok ? JSON.stringify(e.value ?? null) : null,
            e.ok ? null : JSON.stringify(e.error),
            e.startedAt ?? now,
            e.endedAt ?? now,
          );
        }
        if (patch) this.patch(runId, patch);
      })
      .immediate();
  }

  /** Replace the run's pending asks. */
  setAsks(runId: string, asks: readonly ActivityRequest[]): PendingAsk[] {
    const out = asks.map((a) => {
      const spec = (a.params ?? {}) as Record<string, unknown>;
      const key = typeof spec.key === "string" && spec.key ? spec.key : `ask-${a.seq}`;
      return { seq: a.seq, key, fp: a.fp, spec };
    });
    this.db
      .transaction(() => {
        this.db.prepare("DELETE FROM asks WHERE run_id = ?").run(runId);
        const ins = this.db.prepare("INSERT INTO asks (run_id, seq, key, fp, spec) VALUES (?, ?, ?, ?, ?)");
        for (const a of out) ins.run(runId, a.seq, a.key, a.fp, JSON.stringify(a.spec));
      })
      .immediate();
    return out;
  }

  /** The run's pending asks, in call order. */
  asks(runId: string): PendingAsk[] {
    const rows = this.db.prepare("SELECT * FROM asks WHERE run_id = ? ORDER BY seq").all(runId) as Array<{
      seq: number;
      key: string;
      fp: string;
      spec: string;
    }>;
    return rows.map((r) => ({ seq: r.seq, key: r.key, fp: r.fp, spec: JSON.parse(r.spec) }));
  }

  /**
   * Answer every pending ask at once: the answers become journal entries, the asks go, and the run
   * is `running` again, in one transaction (the caller validated the answers first).
   */
  answerAsks(runId: string, answers: ReadonlyArray<{ ask: PendingAsk; value: unknown }>): void {
    this.db
      .transaction(() => {
        this.appendJournal(
          runId,
          answers.map(({ ask, value }) => ({ seq: ask.seq, kind: "ask", fp: ask.fp, ok: true, value })),
        );
        this.db.prepare("DELETE FROM asks WHERE run_id = ?").run(runId);
        this.update(runId, { status: "running" });
      })
      .immediate();
  }

  /** Record an agent session a run created or acquired. */
  addParticipant(runId: string, p: Participant): void {
    this.db
      .prepare(
        "INSERT OR REPLACE INTO participants (run_id, session_id, profile_key, title, ephemeral, output_schema, model, tag) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .run(
        runId,
        p.sessionId,
        p.profileKey,
        p.title,
        p.ephemeral ? 1 : 0,
        p.outputSchema ? JSON.stringify(p.outputSchema) : null,
        p.model,
        p.tag,
      );
  }

  /** The run's participants, in the order they joined. */
  participants(runId: string): Participant[] {
    const rows = this.db
      .prepare("SELECT * FROM participants WHERE run_id = ? ORDER BY rowid")
      .all(runId) as Array<{
      session_id: string;
      profile_key: string;
      title: string;
      ephemeral: number;
      output_schema: string | null;
      model: string | null;
      tag: string | null;
    }>;
    return rows.map((r) => ({
      sessionId: r.session_id,
      profileKey: r.profile_key,
      title: r.title,
      ephemeral: r.ephemeral === 1,
      outputSchema: parse(r.output_schema),
      model: r.model,
      tag: r.tag,
    }));
  }

  /** Of these sessions, those some run created as ephemeral participants (the workbench hides them by default). */
  ephemeralAmong(sessionIds: readonly string[]): Set<string> {
    if (!sessionIds.length) return new Set();
    const rows = this.db
      .prepare(
        `SELECT DISTINCT session_id FROM participants WHERE ephemeral = 1 AND session_id IN (${sessionIds.map(() => "?").join(", ")})`,
      )
      .all(...sessionIds) as Array<{ session_id: string }>;
    return new Set(rows.map((r) => r.session_id));
  }

  /** The participant a session is in a run, if any. */
  participant(runId: string, sessionId: string): Participant | null {
    return this.participants(runId).find((p) => p.sessionId === sessionId) ?? null;
  }

  /** The persistent agent a caller acquired under (project, profile, tag), if any. */
  tagged(key: { project: string; caller: string; profileKey: string; tag: string }): TaggedAgent | null {
    const row = this.db
      .prepare(
        "SELECT session_id, output_schema, model FROM tagged_agents WHERE project = ? AND caller = ? AND profile_key = ? AND tag = ?",
      )
      .get(key.project, key.caller, key.profileKey, key.tag) as
      | { session_id: string; output_schema: string | null; model: string | null }
      | undefined;
    return row
      ? { sessionId: row.session_id, outputSchema: parse(row.output_schema), model: row.model }
      : null;
  }

  /** Remember a persistent agent under (project, caller, profile, tag). */
  setTagged(
    key: { project: string; caller: string; profileKey: string; tag: string },
    agent: TaggedAgent,
  ): void {
    this.db
      .prepare(
        "INSERT OR REPLACE INTO tagged_agents (project, caller, profile_key, tag, session_id, output_schema, model) VALUES (?, ?, ?, ?, ?, ?, ?)",
      )
      .run(
        key.project,
        key.caller,
        key.profileKey,
        key.tag,
        agent.sessionId,
        agent.outputSchema ? JSON.stringify(agent.outputSchema) : null,
        agent.model,
      );
  }
}
