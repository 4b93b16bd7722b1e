import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { toErrorInfo } from "../../core/errors.js";
import { type BlockingReply, CELL, type PlainScript } from "./blocking.js";
import { loadSandbox } from "./module.js";
import { runScriptSync } from "./run.js";

/** Entry of the BlockingWorker's thread: load QuickJS, then run each script posted on the port. */
const { port, cell } = workerData as { port: MessagePort; cell: Int32Array };

function signal(state: number): void {
  Atomics.store(cell, 0, state);
  Atomics.notify(cell, 0);
}

loadSandbox().then(
  () => {
    port.on("message", (script: PlainScript) => {
      let reply: BlockingReply;
      try {
        reply = { ok: true, result: runScriptSync(script) };
      } catch (e) {
        reply = { ok: false, error: toErrorInfo(e) };
      }
      port.postMessage(reply);
      signal(CELL.done);
    });
    signal(CELL.ready);
    parentPort?.postMessage({ ready: true });
  },
  (e: unknown) => {
    signal(CELL.failed);
    parentPort?.postMessage({ failed: toErrorInfo(e) });
  },
);
