import type { QuickJSContext, QuickJSRuntime } from "quickjs-emscripten";
import { NbError } from "../../core/errors.js";
import { hostFailure, type StopState } from "./failures.js";
import { discardModule, heapBytes, loadedModule, recycleIfLarge } from "./module.js";

/** What bounds one sandboxed run: wall-clock time, heap growth and interpreter stack. */
export interface ContextLimits {
  timeoutMs: number;
  memoryBytes: number;
  stackBytes: number;
}

/**
 * Run `use` in a fresh runtime and context of the loaded QuickJS module, interrupted at the
 * deadline, past the memory budget or on `signal`; everything is disposed afterwards. A failure of
 * the host side (not of the script) discards the module, so the next run starts from a clean one.
 */
export function withLimitedContext<T>(
  limits: ContextLimits,
  signal: AbortSignal | undefined,
  use: (vm: QuickJSContext, stop: StopState, runtime: QuickJSRuntime) => T,
): T {
  const module = loadedModule();
  const runtime = module.newRuntime();
  let vm: QuickJSContext | null = null;
  let healthy = true;
  try {
    const deadline = Date.now() + limits.timeoutMs;
    const stop: StopState = {
      timedOut: false,
      aborted: false,
      outOfMemory: false,
      timeoutMs: limits.timeoutMs,
      memoryBytes: limits.memoryBytes,
    };
    runtime.setMemoryLimit(limits.memoryBytes);
    runtime.setMaxStackSize(limits.stackBytes);
    // The heap never shrinks, so its growth during this run bounds what the run allocated.
    const heapStart = heapBytes(module);
    runtime.setInterruptHandler(() => {
      if (signal?.aborted) stop.aborted = true;
      else if (Date.now() > deadline) stop.timedOut = true;
      else if (heapBytes(module) - heapStart > limits.memoryBytes) stop.outOfMemory = true;
      return stop.aborted || stop.timedOut || stop.outOfMemory;
    });
    vm = runtime.newContext();
    return use(vm, stop, runtime);
  } catch (e) {
    if (e instanceof NbError) throw e;
    healthy = false;
    discardModule(module);
    throw hostFailure(e);
  } finally {
    if (healthy) {
      try {
        vm?.dispose();
        runtime.dispose();
        recycleIfLarge(module);
      } catch {
        discardModule(module);
      }
    }
  }
}
