import { parentPort } from "node:worker_threads";
import { toErrorInfo } from "../errors.js";
import type { PoolMessage, PoolRequest } from "./pool.js";

/**
 * The worker side of a WorkerPool: run `start` once (load modules, the QuickJS module), say
 * `ready`, then answer each job with `handle`'s result or its error as an ErrorInfo. `handle` is
 * synchronous: the thread runs one job at a time and is terminated if a job outlives its deadline.
 */
export function serveJobs<Job, Result>(start: () => Promise<void>, handle: (job: Job) => Result): void {
  const port = parentPort;
  if (!port) throw new Error("serveJobs runs in a worker thread");
  const post = (m: PoolMessage) => port.postMessage(m);
  start().then(
    () => {
      port.on("message", ({ id, job }: PoolRequest<Job>) => {
        let reply: PoolMessage;
        try {
          reply = { id, ok: true, result: handle(job) };
        } catch (e) {
          reply = { id, ok: false, error: toErrorInfo(e) };
        }
        try {
          post(reply);
        } catch (e) {
          post({ id, ok: false, error: toErrorInfo(e) });
        }
      });
      post({ ready: true });
    },
    (e: unknown) => post({ failed: toErrorInfo(e) }),
  );
}
