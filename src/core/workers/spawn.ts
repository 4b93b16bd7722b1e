import { Worker, type WorkerOptions } from "node:worker_threads";

/**
 * Start the worker entry `name` that sits beside the module `base` (its `import.meta.url`). From
 * TypeScript sources (tsx, vitest) that is `name.ts`, loaded through tsx's loader; from a compiled
 * tree with the same layout it is `name.js` on a plain Node. Worker entries never write to stdout,
 * which can be a protocol channel (MCP over stdio).
 */
export function spawnWorker(base: string, name: string, options: WorkerOptions = {}): Worker {
  const fromSources = base.endsWith(".ts");
  const file = new URL(`./${name}${fromSources ? ".ts" : ".js"}`, base);
  return new Worker(file, { ...options, execArgv: fromSources ? ["--import", tsxLoader()] : [] });
}

let loader: string | undefined;

/** A preload module that registers tsx's ESM loader in the worker (a worker does not inherit it). */
function tsxLoader(): string {
  loader ??= `data:text/javascript,import { register } from ${JSON.stringify(import.meta.resolve("tsx/esm/api"))}; register();`;
  return loader;
}
