export { type JobLimits, WorkerPool } from "../../core/workers/pool.js";
export { serveJobs } from "../../core/workers/serve-jobs.js";
export type { PlainScript } from "./blocking.js";
export type { HostApi, HostFunction } from "./bridge.js";
export { prepareContained, runScriptContained, runScriptsInThisThread } from "./contained.js";
export { loadSandbox } from "./module.js";
export type { SandboxLimits, SandboxOptions, SandboxResult, ScriptClock } from "./run.js";
export { DEFAULT_LIMITS, runScript, runScriptSync } from "./run.js";
