import { MessageChannel, type MessagePort, receiveMessageOnPort, type Worker } from "node:worker_threads";
import { type ErrorInfo, NbError } from "../../core/errors.js";
import { spawnWorker } from "../../core/workers/spawn.js";
import { DEFAULT_LIMITS, type SandboxOptions, type SandboxResult } from "./run.js";

/** A script that can cross to another thread: no host functions, no signal. */
export type PlainScript = Omit<SandboxOptions, "api" | "signal">;

/** What the blocking worker answers on its port. */
export type BlockingReply = { ok: true; result: SandboxResult } | { ok: false; error: ErrorInfo };

/** States of the shared cell both threads watch (Int32Array of length 1). */
export const CELL = { booting: 0, ready: 1, busy: 2, done: 3, failed: 4 } as const;

/** How long the worker may take to start (tsx transpiling on a busy machine is the slow case). */
const BOOT_TIMEOUT_MS = 20_000;
/** Time past the script's own deadline for the worker to report the interrupt before it is killed. */
const KILL_GRACE_MS = 100;

/**
 * One worker that runs plain scripts for a caller that must have the answer synchronously (a
 * calendar's format/parse). Both threads sleep in `Atomics.wait` on a shared cell: the caller posts
 * the script on a MessagePort and wakes the worker, which reads it with `receiveMessageOnPort`,
 * answers the same way and wakes the caller. A script still running at its deadline (a builtin
 * that ignores the interrupt) gets the worker terminated.
 */
export class BlockingWorker {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly cell = new Int32Array(new SharedArrayBuffer(4));
  /** Resolves when the worker has loaded QuickJS. */
  readonly started: Promise<void>;
  private dead = false;

  constructor() {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = spawnWorker(import.meta.url, "script-worker", {
      workerData: { port: port2, cell: this.cell },
      transferList: [port2],
    });
    this.worker.unref();
    this.started = new Promise<void>((resolve, reject) => {
      this.worker.once("message", (m: { ready?: true; failed?: ErrorInfo }) =>
        m.ready
          ? resolve()
          : reject(new NbError("internal", `The script sandbox could not start: ${m.failed?.message}`)),
      );
      this.worker.once("error", (e) =>
        reject(new NbError("internal", `The script sandbox failed: ${e.message}`)),
      );
    });
    this.started.catch(() => undefined);
    this.worker.once("exit", () => {
      this.dead = true;
    });
  }

  /** False once the worker was killed or stopped; a new one must be started. */
  get alive(): boolean {
    return !this.dead;
  }

  /** Run a script and wait for it, at most its time limit (plus a short grace). */
  run(script: PlainScript): SandboxResult {
    if (!this.waitWhile(CELL.booting, BOOT_TIMEOUT_MS) || Atomics.load(this.cell, 0) === CELL.failed) {
      this.kill();
      throw new NbError("internal", "The script sandbox did not start");
    }
    const timeoutMs = script.limits?.timeoutMs ?? DEFAULT_LIMITS.timeoutMs;
    // Posted first, so the worker finds the script when the cell wakes it.
    this.port.postMessage(script);
    Atomics.store(this.cell, 0, CELL.busy);
    Atomics.notify(this.cell, 0);
    if (!this.waitWhile(CELL.busy, timeoutMs + KILL_GRACE_MS)) {
      this.kill();
      throw new NbError("timeout", `Script timed out after ${timeoutMs / 1000} s`);
    }
    const reply = receiveMessageOnPort(this.port)?.message as BlockingReply | undefined;
    Atomics.store(this.cell, 0, CELL.ready);
    if (!reply) throw new NbError("internal", "The script sandbox gave no answer");
    if (reply.ok) return reply.result;
    const { code, message, fields, details } = reply.error;
    throw new NbError(code, message, { fields, details });
  }

  /** Terminate the worker (it cannot be interrupted any other way). */
  kill(): void {
    this.dead = true;
    this.port.close();
    void this.worker.terminate();
  }

  /** Sleep while the cell holds `state`, at most `ms`; false when the time ran out. */
  private waitWhile(state: number, ms: number): boolean {
    const until = performance.now() + ms;
    while (Atomics.load(this.cell, 0) === state) {
      const left = until - performance.now();
      if (left <= 0) return false;
      Atomics.wait(this.cell, 0, state, left);
    }
    return true;
  }
}
