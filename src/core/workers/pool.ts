import type { Worker } from "node:worker_threads";
import { type ErrorInfo, NbError } from "../errors.js";
import { spawnWorker } from "./spawn.js";

/** What a pool worker posts: `ready` (or `failed`) once it has started, then one reply per job. */
export type PoolMessage =
  | { ready: true }
  | { failed: ErrorInfo }
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: ErrorInfo };

/** What the pool posts to a worker. */
export interface PoolRequest<Job> {
  id: number;
  job: Job;
}

export interface PoolOptions {
  /** `import.meta.url` of the module the worker entry sits beside, and the entry's name (see spawnWorker). */
  base: string;
  name: string;
  /** Idle workers kept started, so a call does not wait for one to boot. */
  keepIdle: number;
  /** Workers at most; further calls wait for one to be free. */
  maxWorkers: number;
  /** How long a worker may take to start (tsx transpiling on a busy machine is the slow case). */
  bootTimeoutMs: number;
  /** What the workers are, as their failures name them (default "The script sandbox"). */
  label?: string;
}

export interface JobLimits {
  /** The job's worker is terminated this long after the job was handed to it. */
  deadlineMs: number;
  signal?: AbortSignal;
  /** The error of a job killed at its deadline. */
  timedOut: () => NbError;
  /** The error of a job killed because its signal aborted. */
  aborted: () => NbError;
}

/** One worker thread and the reply it is waiting to deliver. */
class Slot {
  busy = true;
  readonly ready: Promise<void>;
  private onReply: ((m: PoolMessage) => void) | null = null;
  private onDeath: ((e: NbError) => void) | null = null;

  constructor(
    readonly worker: Worker,
    bootTimeoutMs: number,
    gone: () => void,
    label: string,
  ) {
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        void worker.terminate();
        reject(new NbError("internal", `${label} did not start in time`));
      }, bootTimeoutMs);
      this.onReply = (m) => {
        clearTimeout(timer);
        this.onReply = null;
        if ("ready" in m) resolve();
        else reject(new NbError("internal", `${label} could not start: ${failure(m)}`));
      };
      this.onDeath = (e) => {
        clearTimeout(timer);
        reject(e);
      };
    });
    worker.on("message", (m: PoolMessage) => this.onReply?.(m));
    worker.on("error", (e) => this.die(new NbError("internal", `${label} failed: ${e.message}`)));
    worker.on("exit", (code) => {
      gone();
      this.die(new NbError("internal", `${label} stopped (${code})`));
    });
  }

  /** Wait for the reply to the job just posted. */
  expect(handler: (m: PoolMessage) => void, death: (e: NbError) => void): void {
    this.onReply = handler;
    this.onDeath = death;
  }

  /** Stop listening for a reply (the job settled). */
  settle(): void {
    this.onReply = null;
    this.onDeath = null;
  }

  private die(e: NbError): void {
    const death = this.onDeath;
    this.settle();
    death?.(e);
  }
}

function noop(): void {}

function failure(m: PoolMessage): string {
  return "failed" in m ? m.failed.message : "unexpected message";
}

/**
 * Worker threads that run jobs off the main thread, so a job that never returns (a QuickJS builtin
 * that does not check the interrupt) cannot freeze the process: at its deadline, or when its signal
 * aborts, its worker is terminated and the call fails. Workers stay started between jobs (the
 * expensive part is loading modules and opening databases), and an idle worker does not keep the
 * process alive.
 */
export class WorkerPool<Job, Result> {
  private readonly slots = new Set<Slot>();
  private readonly waiting: Array<(slot: Slot) => void> = [];
  private nextId = 1;

  constructor(private readonly opts: PoolOptions) {}

  /** Start a worker ahead of the first job, when none is idle. */
  async warm(): Promise<void> {
    if (this.idle().length || this.slots.size >= this.opts.maxWorkers) return;
    const slot = this.spawn();
    try {
      await slot.ready;
      this.release(slot);
    } catch {
      this.slots.delete(slot);
    }
  }

  /** Run one job in a worker; rejects with the job's own error, or with `limits`' errors when it is killed. */
  async run(job: Job, limits: JobLimits): Promise<Result> {
    if (limits.signal?.aborted) throw limits.aborted();
    const slot = await this.acquire();
    if (limits.signal?.aborted) {
      this.release(slot);
      throw limits.aborted();
    }
    return new Promise<Result>((resolve, reject) => {
      const id = this.nextId++;
      const done = () => {
        clearTimeout(timer);
        limits.signal?.removeEventListener("abort", onAbort);
        slot.settle();
      };
      const kill = (error: NbError) => {
        done();
        // Rejected only once the thread is gone, so its open transaction has been rolled back.
        void this.discard(slot).then(() => reject(error));
      };
      const onAbort = () => kill(limits.aborted());
      const timer = setTimeout(() => kill(limits.timedOut()), limits.deadlineMs);
      limits.signal?.addEventListener("abort", onAbort, { once: true });
      slot.expect(
        (m) => {
          if (!("id" in m) || m.id !== id) return;
          done();
          this.release(slot);
          if (m.ok) resolve(m.result as Result);
          else
            reject(
              new NbError(m.error.code, m.error.message, {
                fields: m.error.fields,
                details: m.error.details,
              }),
            );
        },
        (e) => {
          done();
          this.slots.delete(slot);
          reject(e);
        },
      );
      slot.worker.ref();
      slot.worker.postMessage({ id, job } satisfies PoolRequest<Job>);
    });
  }

  /**
   * Terminate every worker. A worker still starting is let finish first: Node's terminate() of a
   * thread caught mid-start can stay pending with nothing left to keep the process up, so a CLI that
   * awaits it at top level exits 13 instead of 0.
   */
  async close(): Promise<void> {
    const all = [...this.slots];
    this.slots.clear();
    await Promise.all(all.map((s) => s.ready.then(noop, noop).then(() => s.worker.terminate())));
  }

  private idle(): Slot[] {
    return [...this.slots].filter((s) => !s.busy);
  }

  private spawn(): Slot {
    const slot: Slot = new Slot(
      spawnWorker(this.opts.base, this.opts.name),
      this.opts.bootTimeoutMs,
      () => this.slots.delete(slot),
      this.opts.label ?? "The script sandbox",
    );
    slot.worker.unref();
    this.slots.add(slot);
    return slot;
  }

  private async acquire(): Promise<Slot> {
    const free = this.idle()[0];
    const slot =
      free ??
      (this.slots.size < this.opts.maxWorkers
        ? this.spawn()
        : await new Promise<Slot>((resolve) => this.waiting.push(resolve)));
    slot.busy = true;
    try {
      await slot.ready;
    } catch (e) {
      this.slots.delete(slot);
      this.wakeWaiter();
      throw e;
    }
    return slot;
  }

  private release(slot: Slot): void {
    slot.worker.unref();
    const next = this.waiting.shift();
    if (next) {
      next(slot);
      return;
    }
    slot.busy = false;
    if (this.idle().length > this.opts.keepIdle) void this.discard(slot);
  }

  private async discard(slot: Slot): Promise<void> {
    this.slots.delete(slot);
    await slot.worker.terminate();
    this.wakeWaiter();
    // A killed worker was a warm one: start its replacement before the next call needs it.
    if (this.idle().length < this.opts.keepIdle && this.slots.size < this.opts.maxWorkers) void this.warm();
  }

  /** A call waiting for a free worker gets a new one when a worker went away. */
  private wakeWaiter(): void {
    if (!this.waiting.length || this.slots.size >= this.opts.maxWorkers) return;
    const next = this.waiting.shift()!;
    next(this.spawn());
  }
}

/** A pool made on first use and shared by one module's calls (a sandbox, the page extraction). */
export interface SharedPool<Job, Result> {
  run(job: Job, limits: JobLimits): Promise<Result>;
  warm(): Promise<void>;
  /** Terminate the workers (tests, shutdown); a later call starts new ones. */
  close(): Promise<void>;
}

/** The one way a module keeps its worker pool: started by the first call, not at import. */
export function sharedPool<Job, Result>(opts: PoolOptions): SharedPool<Job, Result> {
  let pool: WorkerPool<Job, Result> | null = null;
  const get = () => {
    pool ??= new WorkerPool<Job, Result>(opts);
    return pool;
  };
  return {
    run: (job, limits) => get().run(job, limits),
    warm: () => get().warm(),
    async close() {
      const p = pool;
      pool = null;
      await p?.close();
    },
  };
}
