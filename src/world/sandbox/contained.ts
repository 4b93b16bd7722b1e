import { BlockingWorker, type PlainScript } from "./blocking.js";
import { loadSandbox } from "./module.js";
import { runScriptSync, type SandboxResult } from "./run.js";

/** True in a thread whose owner terminates it at a deadline (a WorkerPool worker). */
let killable = false;
let blocking: BlockingWorker | null = null;

/**
 * Declare that this thread is disposable: its owner kills it when a job outlives its deadline, so
 * scripts may run in it directly. Called by worker entries, never on the main thread.
 */
export function runScriptsInThisThread(): void {
  killable = true;
}

function blockingWorker(): BlockingWorker {
  if (!blocking?.alive) blocking = new BlockingWorker();
  return blocking;
}

/**
 * Run a plain script synchronously, where a runaway builtin cannot freeze the process: in a
 * killable thread, in place; elsewhere (the main thread), in the blocking worker, which is
 * terminated when the script outlives its time limit. Throws like runScriptSync.
 */
export function runScriptContained(script: PlainScript): SandboxResult {
  return killable ? runScriptSync(script) : blockingWorker().run(script);
}

/** Make runScriptContained ready without blocking: load QuickJS here, or start the blocking worker. */
export async function prepareContained(): Promise<void> {
  if (killable) await loadSandbox();
  else await blockingWorker().started;
}
