import { type MessagePort, parentPort, receiveMessageOnPort, workerData } from "node:worker_threads";
import { toErrorInfo } from "../../core/errors.js";
import { type BlockingReply, CELL, type PlainScript } from "./blocking.js";
import { loadSandbox } from "./module.js";
import { runScriptSync } from "./run.js";

/**
 * Entry of the BlockingWorker's thread: load QuickJS, then serve forever. The thread sleeps on the
 * shared cell rather than in its event loop, so a call costs two thread wake-ups and no more.
 */
const { port, cell } = workerData as { port: MessagePort; cell: Int32Array };

function signal(state: number): void {
  Atomics.store(cell, 0, state);
  Atomics.notify(cell, 0);
}

function serve(): void {
  for (;;) {
    Atomics.wait(cell, 0, CELL.ready);
    if (Atomics.load(cell, 0) !== CELL.busy) continue;
    const script = receiveMessageOnPort(port)?.message as PlainScript | undefined;
    let reply: BlockingReply;
    try {
      if (!script) throw new Error("no script was posted");
      reply = { ok: true, result: runScriptSync(script) };
    } catch (e) {
      reply = { ok: false, error: toErrorInfo(e) };
    }
    port.postMessage(reply);
    signal(CELL.done);
  }
}

loadSandbox().then(
  () => {
    signal(CELL.ready);
    parentPort?.postMessage({ ready: true });
    serve();
  },
  (e: unknown) => {
    signal(CELL.failed);
    parentPort?.postMessage({ failed: toErrorInfo(e) });
  },
);
