import { newQuickJSWASMModule, newVariant, type QuickJSWASMModule, RELEASE_SYNC } from "quickjs-emscripten";
import { NbError } from "../../core/errors.js";

const PAGE = 64 * 1024;
/** Initial WASM heap of a module. */
const INITIAL_HEAP_BYTES = 16 * 1024 * 1024;
/**
 * Hard ceiling of a module's WASM heap. QuickJS's own memory limit only counts allocations, not
 * their sizes, in this build, so the heap itself is bounded and watched (see heapBytes).
 */
export const MAX_HEAP_BYTES = 512 * 1024 * 1024;
/** A module whose heap grew past this after a run is replaced, which gives the memory back. */
const RECYCLE_HEAP_BYTES = 192 * 1024 * 1024;

/**
 * One QuickJS WASM module per process, shared by every run (loading it is the slow part; a
 * runtime and context are cheap and fresh per run). A module whose WASM state may be damaged
 * (the host stack overflowed inside it) or whose heap grew large is discarded and a new one is
 * loaded.
 */
let current: QuickJSWASMModule | null = null;
let loading: Promise<QuickJSWASMModule> | null = null;
const heaps = new WeakMap<QuickJSWASMModule, WasmMemory>();

/** The part of `WebAssembly.Memory` used here (the project's TypeScript libs omit WebAssembly). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
const { Memory } = (
  globalThis as unknown as {
    WebAssembly: { Memory: new (d: { initial: number; maximum: number }) => WasmMemory };
  }
).WebAssembly;

/** Load the shared QuickJS module (idempotent); call before `runScriptSync`. */
export function loadSandbox(): Promise<QuickJSWASMModule> {
  if (current) return Promise.resolve(current);
  if (!loading) {
    const memory = new Memory({
      initial: INITIAL_HEAP_BYTES / PAGE,
      maximum: MAX_HEAP_BYTES / PAGE,
    });
    loading = newQuickJSWASMModule(newVariant(RELEASE_SYNC, { wasmMemory: memory as never })).then(
      (m) => {
        heaps.set(m, memory);
        current = m;
        loading = null;
        return m;
      },
      (e: unknown) => {
        loading = null;
        throw new NbError("internal", `Could not load the QuickJS sandbox: ${(e as Error).message}`);
      },
    );
  }
  return loading;
}

/** The loaded module, or an error telling the caller to await `loadSandbox()` first. */
export function loadedModule(): QuickJSWASMModule {
  if (!current) throw new NbError("internal", "The sandbox is not loaded yet (await loadSandbox() first)");
  return current;
}

/** Current size of a module's WASM heap in bytes (it only grows). */
export function heapBytes(module: QuickJSWASMModule): number {
  return heaps.get(module)?.buffer.byteLength ?? 0;
}

/** Drop a module whose WASM state can no longer be trusted and start loading a fresh one. */
export function discardModule(module: QuickJSWASMModule): void {
  if (current !== module) return;
  current = null;
  loadSandbox().catch(() => undefined);
}

/** After a run: replace the module when its heap grew large, so the memory is given back. */
export function recycleIfLarge(module: QuickJSWASMModule): void {
  if (heapBytes(module) > RECYCLE_HEAP_BYTES) discardModule(module);
}
