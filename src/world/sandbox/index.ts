export type { HostApi, HostFunction } from "./bridge.js";
export { loadSandbox } from "./module.js";
export type { SandboxLimits, SandboxOptions, SandboxResult } from "./run.js";
export { DEFAULT_LIMITS, runScript, runScriptSync } from "./run.js";
