import { parentPort } from "node:worker_threads";
import { toErrorInfo } from "../errors.js";
import type { PoolMessage, PoolRequest } from "./pool.js";

/**
 * The worker side of a WorkerPool: run `start` (load modules, the QuickJS module), say `ready`,
 * then answer each job with `handle`'s result or its error as an ErrorInfo. `start` runs again
 * before every job and must be cheap once done: a job that discarded the QuickJS module (a memory
 * bomb) leaves it reloading, and the next job waits for it. `handle` is synchronous: the thread
 * runs one job at a time and is terminated if a job outlives its deadline.
 */
export function serveJobs<Job, Result>(start: () => Promise<void>, handle: (job: Job) => Result): void {
  const port = parentPort;
  if (!port) throw new Error("serveJobs runs in a worker thread");
  const post = (m: PoolMessage) => port.postMessage(m);
  const answer = (id: number, job: Job, ready: boolean, failure?: unknown) => {
    let reply: PoolMessage;
    try {
      if (!ready) throw failure;
      reply = { id, ok: true, result: handle(job) };
    } catch (e) {
      reply = { id, ok: false, error: toErrorInfo(e) };
    }
    try {
      post(reply);
    } catch (e) {
      post({ id, ok: false, error: toErrorInfo(e) });
    }
  };
  start().then(
    () => {
      let queue: Promise<void> = Promise.resolve();
      port.on("message", ({ id, job }: PoolRequest<Job>) => {
        queue = queue.then(() =>
          start().then(
            () => answer(id, job, true),
            (e: unknown) => answer(id, job, false, e),
          ),
        );
      });
      post({ ready: true });
    },
    (e: unknown) => post({ failed: toErrorInfo(e) }),
  );
}
