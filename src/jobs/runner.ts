import { type ErrorInfo, NbError, toErrorInfo } from "../core/errors.js";
import { DEFAULT_MAX_CONCURRENT_JOBS } from "../models/config.js";
import { runnerAlive, thisRunner } from "./process.js";
import { flowBackText } from "./reminder.js";
import {
  ACTIVE_STATUSES,
  type Job,
  type JobEnding,
  type JobKind,
  type JobResult,
  type JobTable,
  type ListJobsOptions,
} from "./store.js";

/** What a running job is handed. */
export interface JobContext {
  readonly jobId: string;
  /** Fires when the job is cancelled or its process shuts down: stop, and let everything you started go. */
  readonly signal: AbortSignal;
  /** The latest progress line (e.g. the tail of a command's output); stored at most every 250 ms. */
  progress(text: string): void;
  /** The job waits on something outside it (the user answering a child's approval). */
  waiting(text: string): void;
  /** The job runs again after waiting. */
  running(): void;
}

/** A job to start: what it is, whose it is, and the work. */
export interface JobSpec {
  kind: JobKind;
  title: string;
  /** The session the result flows back to (and the only one that may see or cancel it); null: the user's. */
  ownerSessionId: string | null;
  /** The tool call that started it. */
  originCallId?: string;
  /** What it works on, as JSON (`{command}`, `{sessionId}`, `{runId}`). */
  ref?: unknown;
  /** The work. Its result is the job's; a throw fails it; after a cancel its outcome is ignored. */
  run(job: JobContext): Promise<JobResult>;
}

/** Who asks: a session (sees and cancels only its own jobs) or the user at the CLI (all). */
export type JobViewer = { sessionId: string } | "user";

/** What a runner announces, after the change is committed. */
export type JobEvent = { type: "job_started"; job: Job } | { type: "job_ended"; job: Job };

/** How a runner is set up. */
export interface JobRunnerOptions {
  table: JobTable;
  /** Jobs running at once in this process (default 4); the rest wait, queued. */
  maxConcurrent?: number;
  /** Jobs waiting for a slot (default 1000); past it, starting one fails with limit_exceeded. */
  maxQueued?: number;
  /** How long a cancelled job may take to stop before it is ended anyway (default 1000 ms). */
  cancelGraceMs?: number;
  /** How often running jobs are checked for a cancel asked from another process (default 500 ms). */
  pollMs?: number;
  /** Host paths a failed job's error must not show (the workspace's root), as dispatch hides them. */
  hidePaths?: string[];
}

const DEFAULT_MAX_QUEUED = 1000;
const DEFAULT_CANCEL_GRACE_MS = 1000;
const DEFAULT_POLL_MS = 500;
const PREVIEW_FLUSH_MS = 250;

const INTERRUPTED_DEAD: ErrorInfo = {
  code: "aborted",
  message: "The nbook process that ran it ended before the job finished.",
};
const INTERRUPTED_EXIT: ErrorInfo = {
  code: "aborted",
  message: "The nbook process running it exited before the job finished.",
};

/** One job this runner holds: queued for a slot, or running. */
interface LiveJob {
  id: string;
  ownerSessionId: string | null;
  spec: JobSpec;
  controller: AbortController;
  launched: boolean;
  ended: boolean;
  /** Settles when the work's promise does (the work may outlive a forced end). */
  work?: Promise<void>;
  preview?: string;
  flush?: NodeJS.Timeout;
}

function isActive(job: Job): boolean {
  return ACTIVE_STATUSES.includes(job.status);
}

/**
 * The job as `viewer` may see it: the user sees every job (an unknown id is `not_found`); a
 * session only its own, and gets the same `not_allowed` for another session's job as for an id that
 * does not exist, so job ids cannot be probed (as session ids cannot).
 */
export function visibleJob(lookup: (id: string) => Job, jobId: string, viewer: JobViewer): Job {
  if (viewer === "user") return lookup(jobId);
  let job: Job | null = null;
  try {
    job = lookup(jobId);
  } catch (e) {
    if (!(e instanceof NbError) || e.code !== "not_found") throw e;
  }
  if (job?.ownerSessionId !== viewer.sessionId) {
    throw new NbError(
      "not_allowed",
      `Job ${jobId} is not one of this session's jobs: a session sees and cancels only the jobs it started (list_jobs lists them)`,
    );
  }
  return job;
}

/**
 * End the active jobs of runners whose process is gone as `interrupted`, each owner told once (the
 * ending and its flow-back commit together, guarded, so two processes recovering at once tell it
 * once). Returns the jobs it ended.
 */
export function recoverInterruptedJobs(table: JobTable, self?: string): Job[] {
  const ended: Job[] = [];
  for (const runner of table.runnersWithActiveJobs()) {
    if (runner === self || runnerAlive(runner)) continue;
    for (const { id } of table.activeOf(runner)) {
      const job = table.end(id, { status: "interrupted", error: INTERRUPTED_DEAD }, flowBackText);
      if (job) ended.push(job);
    }
  }
  return ended;
}

/**
 * Runs background jobs inside this process: at most `maxConcurrent` at once (the rest queued, up to
 * `maxQueued`), each row in the store kept up to date. A job's terminal state is committed (with its
 * flow-back to the owner) before it is announced; a cancel aborts the work, waits a bounded grace,
 * then ends the job anyway, and whatever the work returns later is dropped. On shutdown the jobs
 * still active end as `interrupted`, and their owners are told on their next run.
 */
export class JobRunner {
  /** This process as the store knows it. */
  readonly runner = thisRunner();
  private readonly table: JobTable;
  private maxConcurrent: number;
  private readonly maxQueued: number;
  private readonly graceMs: number;
  private readonly pollMs: number;
  private readonly hidePaths: string[];
  private readonly live = new Map<string, LiveJob>();
  private readonly queue: LiveJob[] = [];
  private running = 0;
  private closed = false;
  private poller: NodeJS.Timeout | undefined;
  private readonly listeners = new Set<(e: JobEvent) => void>();
  private readonly idleWaiters = new Set<() => void>();

  constructor(opts: JobRunnerOptions) {
    this.table = opts.table;
    this.maxConcurrent = checkedLimit(opts.maxConcurrent ?? DEFAULT_MAX_CONCURRENT_JOBS, "maxConcurrentJobs");
    this.maxQueued = opts.maxQueued ?? DEFAULT_MAX_QUEUED;
    this.graceMs = opts.cancelGraceMs ?? DEFAULT_CANCEL_GRACE_MS;
    this.pollMs = opts.pollMs ?? DEFAULT_POLL_MS;
    this.hidePaths = opts.hidePaths ?? [];
    recoverInterruptedJobs(this.table, this.runner);
  }

  /** Change how many jobs may run at once; queued jobs start at once when it grew. */
  setMaxConcurrent(limit: number): void {
    this.maxConcurrent = checkedLimit(limit, "maxConcurrentJobs");
    this.pump();
  }

  /** Listen to jobs starting and ending; returns the unsubscribe function. */
  on(listener: (e: JobEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Start a job (running now, or queued for a slot); returns it as stored. */
  start(spec: JobSpec): Job {
    if (this.closed)
      throw new NbError("conflict", "This nbook process is shutting down and starts no new jobs");
    const runNow = this.running < this.maxConcurrent && this.queue.length === 0;
    if (!runNow && this.queue.length >= this.maxQueued) {
      throw new NbError(
        "limit_exceeded",
        `${this.queue.length} jobs already wait for a slot (${this.maxConcurrent} run at once); wait for some to end`,
      );
    }
    const job = this.table.create({
      kind: spec.kind,
      title: spec.title,
      ownerSessionId: spec.ownerSessionId,
      originCallId: spec.originCallId ?? null,
      ref: spec.ref,
      status: runNow ? "running" : "queued",
      runner: this.runner,
    });
    const live: LiveJob = {
      id: job.id,
      ownerSessionId: spec.ownerSessionId,
      spec,
      controller: new AbortController(),
      launched: false,
      ended: false,
    };
    this.live.set(job.id, live);
    if (runNow) this.launch(live);
    else this.queue.push(live);
    this.ensurePoller();
    this.emit({ type: "job_started", job });
    return job;
  }

  /** One job with its whole result, as `viewer` may see it (visibleJob). */
  get(jobId: string, viewer: JobViewer): Job {
    return visibleJob((id) => this.table.getFull(id), jobId, viewer);
  }

  /** Jobs newest first: a session sees only its own, the user every one. */
  list(
    viewer: JobViewer,
    opts: Omit<ListJobsOptions, "ownerSessionId"> & { ownerSessionId?: string } = {},
  ): Job[] {
    const owner = viewer === "user" ? opts.ownerSessionId : viewer.sessionId;
    return this.table.list({ ...opts, ownerSessionId: owner });
  }

  /**
   * Cancel a job and return it as it ended. A job of this process is aborted and given the grace to
   * stop, then ended as `cancelled` anyway; one running in another process is asked to stop and
   * ended here if it has not within the grace (or at once when that process is gone).
   */
  async cancel(jobId: string, viewer: JobViewer): Promise<Job> {
    const job = visibleJob((id) => this.table.get(id), jobId, viewer);
    if (!isActive(job)) return job;
    const live = this.live.get(jobId);
    if (live) await this.cancelLive(live, "Cancelled.");
    else await cancelElsewhere(this.table, job, this.graceMs + 2 * this.pollMs);
    return this.table.get(jobId);
  }

  /** Jobs of this runner still queued or running (of one owner, or all). */
  activeCount(ownerSessionId?: string): number {
    let n = 0;
    for (const l of this.live.values())
      if (ownerSessionId === undefined || l.ownerSessionId === ownerSessionId) n++;
    return n;
  }

  /** Resolves once this runner holds no active job of the owner (or none at all). */
  whenIdle(ownerSessionId?: string): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.activeCount(ownerSessionId) > 0) return;
        this.idleWaiters.delete(check);
        resolve();
      };
      this.idleWaiters.add(check);
      check();
    });
  }

  /**
   * Stop: start nothing more, abort every job, and end those still active as `interrupted` (their
   * owners are told on their next run). Synchronous, so it can run while the process exits.
   */
  shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.poller);
    this.queue.length = 0;
    for (const live of [...this.live.values()]) {
      live.controller.abort();
      this.end(live, { status: "interrupted", error: INTERRUPTED_EXIT });
    }
  }

  private launch(live: LiveJob): void {
    live.launched = true;
    this.running++;
    const signal = live.controller.signal;
    const ctx: JobContext = {
      jobId: live.id,
      signal,
      progress: (text) => {
        if (live.ended) return;
        live.preview = text;
        live.flush ??= setTimeout(() => {
          live.flush = undefined;
          if (!live.ended && live.preview !== undefined) this.table.setPreview(live.id, live.preview);
        }, PREVIEW_FLUSH_MS);
      },
      waiting: (text) => {
        if (!live.ended) this.table.setStatus(live.id, "waiting", text);
      },
      running: () => {
        if (!live.ended) this.table.setStatus(live.id, "running", "");
      },
    };
    live.work = (async () => {
      let ending: JobEnding;
      try {
        const result = await live.spec.run(ctx);
        ending = signal.aborted ? { status: "cancelled" } : { status: "completed", result };
      } catch (e) {
        ending = signal.aborted
          ? { status: "cancelled" }
          : { status: "failed", error: toErrorInfo(e, this.hidePaths) };
      }
      this.end(live, ending);
    })();
  }

  /** End a job once: commit (with its flow-back), free its slot, announce it. */
  private end(live: LiveJob, ending: JobEnding): void {
    if (live.ended) return;
    live.ended = true;
    clearTimeout(live.flush);
    this.live.delete(live.id);
    if (live.launched) this.running--;
    else this.queue.splice(this.queue.indexOf(live), 1);
    let job: Job | null = null;
    try {
      // Null: another process ended it first (and told its owner); it is announced as it stands.
      job = this.table.end(live.id, ending, flowBackText) ?? this.table.get(live.id);
    } catch {
      // The store is closed (the process is going away): the next open finds the job interrupted.
    }
    // After shutdown nothing is announced (no flow-back turn may start while the process closes):
    // the owners take their follow-ups on their next run.
    if (!this.closed) this.pump();
    if (job && !this.closed) this.emit({ type: "job_ended", job });
    for (const w of [...this.idleWaiters]) w();
  }

  private async cancelLive(live: LiveJob, message: string): Promise<void> {
    if (!live.launched) {
      this.end(live, { status: "cancelled", error: { code: "aborted", message } });
      return;
    }
    live.controller.abort();
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((r) => {
      timer = setTimeout(r, this.graceMs);
    });
    await Promise.race([live.work, grace]);
    clearTimeout(timer);
    // Still running after the grace: it ends now, and whatever it returns later is not recorded.
    this.end(live, {
      status: "cancelled",
      error: {
        code: "aborted",
        message: `${message} It did not stop within ${this.graceMs} ms and was ended.`,
      },
    });
  }

  private pump(): void {
    while (this.running < this.maxConcurrent && this.queue.length) {
      const next = this.queue.shift()!;
      if (!this.table.start(next.id)) {
        // Ended meanwhile (cancelled from another process): drop it without running.
        next.launched = true;
        this.running++;
        next.controller.abort();
        this.end(next, { status: "cancelled" });
        continue;
      }
      this.launch(next);
    }
  }

  /** While jobs run here, look now and then for cancels asked from other processes. */
  private ensurePoller(): void {
    if (this.poller) return;
    this.poller = setInterval(() => this.poll(), this.pollMs);
    this.poller.unref();
  }

  private poll(): void {
    if (this.live.size === 0) {
      clearInterval(this.poller);
      this.poller = undefined;
      return;
    }
    let active: Map<string, boolean>;
    try {
      active = new Map(this.table.activeOf(this.runner).map((r) => [r.id, r.cancelRequested]));
    } catch {
      return; // the store is closed
    }
    for (const live of [...this.live.values()]) {
      if (!active.has(live.id)) {
        // Ended by another process (a forced cancel), which committed it and queued its flow-back:
        // stop the work, record nothing more, and announce the end as it stands.
        live.controller.abort();
        live.ended = true;
        clearTimeout(live.flush);
        this.live.delete(live.id);
        if (live.launched) this.running--;
        else this.queue.splice(this.queue.indexOf(live), 1);
        this.pump();
        this.emit({ type: "job_ended", job: this.table.get(live.id) });
        for (const w of [...this.idleWaiters]) w();
      } else if (active.get(live.id) && !live.controller.signal.aborted) {
        void this.cancelLive(live, "Cancelled by the user.");
      }
    }
  }

  private emit(e: JobEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // A broken listener (a UI) must not break the runner.
      }
    }
  }
}

function checkedLimit(n: number, what: string): number {
  if (!Number.isInteger(n) || n < 1) throw new NbError("invalid_input", `${what} must be a positive integer`);
  return n;
}

/**
 * Cancel a job another process runs: ask it, wait for it to end (bounded), else end it here. A job
 * whose process is gone ends at once, as interrupted work that was then cancelled.
 */
export async function cancelElsewhere(table: JobTable, job: Job, waitMs: number): Promise<void> {
  const forced: ErrorInfo = { code: "aborted", message: "Cancelled by the user." };
  if (!runnerAlive(job.runner)) {
    table.end(job.id, { status: "cancelled", error: forced }, flowBackText);
    return;
  }
  table.requestCancel(job.id);
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    if (!isActive(table.get(job.id))) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  table.end(
    job.id,
    {
      status: "cancelled",
      error: { code: "aborted", message: "Cancelled by the user; its process did not confirm in time." },
    },
    flowBackText,
  );
}
