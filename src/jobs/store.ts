import { randomBytes, randomUUID } from "node:crypto";
import type Database from "better-sqlite3";
import { z } from "zod";
import { ErrorInfoSchema } from "../core/error-schema.js";
import { type ErrorInfo, NbError } from "../core/errors.js";
import { now, toKey } from "../core/sqlite.js";
import type { QueueTable } from "../harness/store/queues.js";

/** What a job runs: the first two kinds, and workflows (their own issue) on the same model. */
export const JobKindSchema = z.enum(["invoke_agent", "bash", "workflow"]);
export type JobKind = z.infer<typeof JobKindSchema>;

export const JobStatusSchema = z.enum([
  "queued",
  "running",
  "waiting",
  "completed",
  "failed",
  "cancelled",
  "interrupted",
]);
export type JobStatus = z.infer<typeof JobStatusSchema>;

/** Statuses a job can still leave; the others are terminal. */
export const ACTIVE_STATUSES: readonly JobStatus[] = ["queued", "running", "waiting"];
const ACTIVE_SQL = "('queued', 'running', 'waiting')";

/** What a finished job produced: the text the owner is told, and structured data. */
export const JobResultSchema = z.object({ text: z.string(), data: z.unknown().optional() }).strict();
export type JobResult = z.infer<typeof JobResultSchema>;

/**
 * Where a job's flow-back stands: `none` (still running, or no owner), `queued` (waiting in the
 * owner's queue for its turn), `delivered` (the owner's history has it).
 */
export type DeliveryState = "none" | "queued" | "delivered";

/** A job as every door shows it. `result` is null in lists (it may be large): `get` reads it. */
export interface Job {
  id: string;
  kind: JobKind;
  title: string;
  ownerSessionId: string | null;
  originCallId: string | null;
  ref: unknown;
  status: JobStatus;
  /** The latest progress line (a tail of output, "waiting for …"), at most 400 characters. */
  preview: string;
  result: JobResult | null;
  /** Characters in the result text (also in lists, where the result itself is left out). */
  resultChars: number;
  error: ErrorInfo | null;
  /** The process that runs (or ran) it: `host:pid:start`. */
  runner: string;
  deliveryId: string;
  delivery: DeliveryState;
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
}

/** A jobs row as SQLite returns it (list queries leave `result` out and add its length). */
interface JobRow {
  id: string;
  kind: string;
  title: string;
  owner_session_id: number | null;
  origin_call_id: string | null;
  ref: string | null;
  status: string;
  preview: string;
  result?: string | null;
  result_chars: number | null;
  error: string | null;
  runner: string;
  cancel_requested: number;
  delivery_id: string;
  delivered: number | null;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
}

/** What starting a job records. */
export interface NewJob {
  kind: JobKind;
  title: string;
  ownerSessionId: string | null;
  originCallId?: string | null;
  ref?: unknown;
  status: "queued" | "running";
  runner: string;
}

/** How a job ended. */
export interface JobEnding {
  status: "completed" | "failed" | "cancelled" | "interrupted";
  result?: JobResult;
  error?: ErrorInfo;
}

/** Filters for listing jobs, newest first. */
export interface ListJobsOptions {
  ownerSessionId?: string;
  /** Only jobs whose owner session works in this project. */
  project?: string;
  status?: JobStatus;
  limit?: number;
}

const PREVIEW_MAX = 400;
const LIST_LIMIT_MAX = 500;

// The delivery state: no delivery row → none; its queue item consumed → delivered.
const COLUMNS = `j.id, j.kind, j.title, j.owner_session_id, j.origin_call_id, j.ref, j.status, j.preview,
  COALESCE(length(json_extract(j.result, '$.text')), 0) AS result_chars, j.error, j.runner, j.cancel_requested, j.delivery_id,
  CASE WHEN d.id IS NULL THEN NULL ELSE q.consumed_at IS NOT NULL END AS delivered,
  j.created_at, j.started_at, j.ended_at`;
const FROM = `jobs j LEFT JOIN deliveries d ON d.id = j.delivery_id
  LEFT JOIN queue_items q ON q.id = d.queue_item_id`;

/** Clip a progress line to the preview size, keeping its end (the latest output). */
export function clipPreview(text: string): string {
  const flat = text.replace(/\s+$/, "");
  return flat.length <= PREVIEW_MAX ? flat : `…${flat.slice(flat.length - PREVIEW_MAX + 1)}`;
}

function toJob(r: JobRow): Job {
  const result = r.result ? JobResultSchema.parse(JSON.parse(r.result)) : null;
  return {
    id: r.id,
    kind: r.kind as JobKind,
    title: r.title,
    ownerSessionId: r.owner_session_id === null ? null : String(r.owner_session_id),
    originCallId: r.origin_call_id,
    ref: r.ref === null ? null : JSON.parse(r.ref),
    status: r.status as JobStatus,
    preview: r.preview,
    result,
    resultChars: r.result_chars ?? 0,
    error: r.error === null ? null : ErrorInfoSchema.parse(JSON.parse(r.error)),
    runner: r.runner,
    deliveryId: r.delivery_id,
    delivery: r.delivered === null ? "none" : r.delivered ? "delivered" : "queued",
    createdAt: r.created_at,
    startedAt: r.started_at,
    endedAt: r.ended_at,
  };
}

/** A fresh job id: `job_` and 8 hex characters. */
function newJobId(): string {
  return `job_${randomBytes(4).toString("hex")}`;
}

/**
 * Durable background jobs and their flow-back deliveries, in the session store's database. Every
 * change of a job's status is one guarded UPDATE (only from an active status), so a job ends once:
 * the first ending wins, a late one (a result after a cancel) changes nothing. Ending a job with an
 * owner queues its follow-up in the same transaction: committed before anyone is told.
 */
export class JobTable {
  private readonly insertStmt: Database.Statement;
  private readonly byId: Database.Statement;
  private readonly fullById: Database.Statement;
  private readonly startStmt: Database.Statement;
  private readonly statusStmt: Database.Statement;
  private readonly previewStmt: Database.Statement;
  private readonly endStmt: Database.Statement;
  private readonly cancelStmt: Database.Statement;
  private readonly activeRunners: Database.Statement;
  private readonly activeOfRunner: Database.Statement;
  private readonly deliveryById: Database.Statement;
  private readonly insertDelivery: Database.Statement;
  private readonly undeliveredStmt: Database.Statement;
  private readonly endTx: (id: string, ending: JobEnding, reminder: (job: Job) => string) => Job | null;
  private readonly deliverTx: (
    sessionKey: number,
    deliveryId: string,
    text: string,
    jobId: string | null,
  ) => boolean;

  constructor(
    private readonly db: Database.Database,
    private readonly queues: QueueTable,
  ) {
    this.insertStmt = db.prepare(
      `INSERT INTO jobs (id, kind, title, owner_session_id, origin_call_id, ref, status, runner,
         delivery_id, created_at, started_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.byId = db.prepare(`SELECT ${COLUMNS} FROM ${FROM} WHERE j.id = ?`);
    this.fullById = db.prepare(`SELECT ${COLUMNS}, j.result FROM ${FROM} WHERE j.id = ?`);
    this.startStmt = db.prepare(
      "UPDATE jobs SET status = 'running', started_at = ?, updated_at = ? WHERE id = ? AND status = 'queued'",
    );
    this.statusStmt = db.prepare(
      "UPDATE jobs SET status = ?, preview = ?, updated_at = ? WHERE id = ? AND status IN ('running', 'waiting')",
    );
    this.previewStmt = db.prepare(
      `UPDATE jobs SET preview = ?, updated_at = ? WHERE id = ? AND status IN ${ACTIVE_SQL}`,
    );
    this.endStmt = db.prepare(
      `UPDATE jobs SET status = ?, result = ?, error = ?, ended_at = ?, updated_at = ?
       WHERE id = ? AND status IN ${ACTIVE_SQL}`,
    );
    this.cancelStmt = db.prepare(
      `UPDATE jobs SET cancel_requested = 1, updated_at = ? WHERE id = ? AND status IN ${ACTIVE_SQL}`,
    );
    this.activeRunners = db.prepare(`SELECT DISTINCT runner FROM jobs WHERE status IN ${ACTIVE_SQL}`);
    this.activeOfRunner = db.prepare(
      `SELECT id, status, cancel_requested FROM jobs WHERE runner = ? AND status IN ${ACTIVE_SQL}`,
    );
    this.deliveryById = db.prepare("SELECT 1 FROM deliveries WHERE id = ?");
    this.insertDelivery = db.prepare(
      "INSERT INTO deliveries (id, session_id, job_id, queue_item_id, created_at) VALUES (?, ?, ?, ?, ?)",
    );
    this.undeliveredStmt = db.prepare(
      `SELECT d.id FROM deliveries d JOIN queue_items q ON q.id = d.queue_item_id
       WHERE d.session_id = ? AND q.consumed_at IS NULL ORDER BY q.id`,
    );
    const end = db.transaction((id: string, ending: JobEnding, reminder: (job: Job) => string) => {
      const t = now();
      const r = this.endStmt.run(
        ending.status,
        ending.result ? JSON.stringify(ending.result) : null,
        ending.error ? JSON.stringify(ending.error) : null,
        t,
        t,
        id,
      );
      if (r.changes === 0) return null;
      const job = this.getFull(id);
      if (job.ownerSessionId === null) return job;
      this.deliverInTx(Number(job.ownerSessionId), job.deliveryId, reminder(job), job.id);
      return { ...job, delivery: "queued" as const };
    });
    this.endTx = (id, ending, reminder) => end.immediate(id, ending, reminder);
    const deliver = db.transaction(
      (sessionKey: number, deliveryId: string, text: string, jobId: string | null) =>
        this.deliverInTx(sessionKey, deliveryId, text, jobId),
    );
    this.deliverTx = (sessionKey, deliveryId, text, jobId) =>
      deliver.immediate(sessionKey, deliveryId, text, jobId);
  }

  /** Record a new job (queued, or running at once); returns it. */
  create(job: NewJob): Job {
    const t = now();
    const owner = job.ownerSessionId === null ? null : toKey(job.ownerSessionId, "session");
    for (let attempt = 0; ; attempt++) {
      const id = newJobId();
      try {
        this.insertStmt.run(
          id,
          job.kind,
          job.title,
          owner,
          job.originCallId ?? null,
          job.ref === undefined ? null : JSON.stringify(job.ref),
          job.status,
          job.runner,
          randomUUID(),
          t,
          job.status === "running" ? t : null,
          t,
        );
        return this.get(id);
      } catch (e) {
        const code = (e as { code?: string }).code;
        if (code === "SQLITE_CONSTRAINT_FOREIGNKEY")
          throw new NbError("not_found", `No session with id "${job.ownerSessionId}"`);
        // A clash of two random ids: draw again (a few times at most).
        if (code !== "SQLITE_CONSTRAINT_PRIMARYKEY" || attempt >= 3) throw e;
      }
    }
  }

  /** One job without its result; `not_found` when none. */
  get(id: string): Job {
    const row = this.byId.get(id) as JobRow | undefined;
    if (!row) throw new NbError("not_found", `No job "${id}"`);
    return toJob(row);
  }

  /** One job with its whole result; `not_found` when none. */
  getFull(id: string): Job {
    const row = this.fullById.get(id) as JobRow | undefined;
    if (!row) throw new NbError("not_found", `No job "${id}"`);
    return toJob(row);
  }

  /** Jobs newest first (at most `limit`, default 50), without their results. */
  list(opts: ListJobsOptions = {}): Job[] {
    const where: string[] = [];
    const args: unknown[] = [];
    if (opts.ownerSessionId !== undefined) {
      where.push("j.owner_session_id = ?");
      args.push(toKey(opts.ownerSessionId, "session"));
    }
    if (opts.project !== undefined) {
      where.push("j.owner_session_id IN (SELECT id FROM sessions WHERE project = ?)");
      args.push(opts.project);
    }
    if (opts.status !== undefined) {
      where.push("j.status = ?");
      args.push(JobStatusSchema.parse(opts.status));
    }
    const limit = Math.min(Math.max(1, Math.floor(opts.limit ?? 50)), LIST_LIMIT_MAX);
    const sql = `SELECT ${COLUMNS} FROM ${FROM} ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY j.rowid DESC LIMIT ${limit}`;
    return (this.db.prepare(sql).all(...args) as JobRow[]).map(toJob);
  }

  /** A queued job starts running; false when it is no longer queued (cancelled meanwhile). */
  start(id: string): boolean {
    const t = now();
    return this.startStmt.run(t, t, id).changes === 1;
  }

  /** A running job waits (on the user), or runs again; the preview says why. False once it ended. */
  setStatus(id: string, status: "running" | "waiting", preview: string): boolean {
    return this.statusStmt.run(status, clipPreview(preview), now(), id).changes === 1;
  }

  /** Store the latest progress line of an active job. */
  setPreview(id: string, preview: string): void {
    this.previewStmt.run(clipPreview(preview), now(), id);
  }

  /**
   * End an active job and, when it has an owner, queue the flow-back (`reminder(job)`) in the same
   * transaction. Returns the ended job, or null when it had already ended (nothing is changed).
   */
  end(id: string, ending: JobEnding, reminder: (job: Job) => string): Job | null {
    return this.endTx(id, ending, reminder);
  }

  /** Ask whoever runs an active job to cancel it; false when it is not active. */
  requestCancel(id: string): boolean {
    return this.cancelStmt.run(now(), id).changes === 1;
  }

  /** The runners that hold active jobs. */
  runnersWithActiveJobs(): string[] {
    return (this.activeRunners.all() as { runner: string }[]).map((r) => r.runner);
  }

  /** The active jobs of one runner, with whether a cancel was asked for. */
  activeOf(runner: string): { id: string; status: JobStatus; cancelRequested: boolean }[] {
    return (
      this.activeOfRunner.all(runner) as { id: string; status: string; cancel_requested: number }[]
    ).map((r) => ({ id: r.id, status: r.status as JobStatus, cancelRequested: r.cancel_requested === 1 }));
  }

  /**
   * Queue `text` for a session as a follow-up under a stable delivery id, once: a second call with
   * the same id (another process, a retry) queues nothing. Returns true when this call queued it.
   */
  deliver(sessionId: string, deliveryId: string, text: string, jobId: string | null = null): boolean {
    if (!deliveryId) throw new NbError("invalid_input", "A delivery needs an id");
    return this.deliverTx(toKey(sessionId, "session"), deliveryId, text, jobId);
  }

  /** Delivery ids queued for a session whose follow-up has not reached its history yet. */
  undelivered(sessionId: string): string[] {
    return (this.undeliveredStmt.all(toKey(sessionId, "session")) as { id: string }[]).map((r) => r.id);
  }

  private deliverInTx(sessionKey: number, deliveryId: string, text: string, jobId: string | null): boolean {
    if (this.deliveryById.get(deliveryId)) return false;
    const item = this.queues.enqueue(sessionKey, "system", text);
    this.insertDelivery.run(deliveryId, sessionKey, jobId, Number(item.id), now());
    return true;
  }
}
