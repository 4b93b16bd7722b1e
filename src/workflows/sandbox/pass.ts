import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, VmCallResult } from "quickjs-emscripten";
import { ERROR_CODES, type ErrorInfo, NbError } from "../../core/errors.js";
import { parseScriptJson } from "../../world/sandbox/bridge.js";
import { withLimitedContext } from "../../world/sandbox/context.js";
import { type StopState, scriptFailure, type ThrownInfo } from "../../world/sandbox/failures.js";
import { WF_PRELUDE } from "./prelude.js";
import type { JournalEntry, PassJob, PassOutcome, SandboxLimits } from "./protocol.js";

// The QuickJS stack budget of a pass (bounds recursion depth).
const STACK_BYTES = 256 * 1024;

/** The line of `filename` a thrown value's stack (or lineNumber) points at. */
export function thrownLine(info: ThrownInfo, filename: string): number | undefined {
  const escaped = filename.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const m = info.stack ? new RegExp(`${escaped}:(\\d+)`).exec(info.stack) : null;
  const line = m ? Number(m[1]) : info.lineNumber;
  return line !== undefined && Number.isFinite(line) && line > 0 ? line : undefined;
}

/** Handles of one pass, disposed together. */
class Handles {
  private readonly all: QuickJSHandle[] = [];
  keep<T extends QuickJSHandle>(h: T): T {
    this.all.push(h);
    return h;
  }
  dispose(): void {
    for (const h of this.all.reverse()) if (h.alive) h.dispose();
  }
}

/** Describe a thrown handle without running script code when it is an interrupt or out-of-memory. */
function describeThrown(vm: QuickJSContext, h: QuickJSHandle): ThrownInfo {
  const str = (key: string): string | undefined => {
    const p = vm.getProp(h, key);
    try {
      return vm.typeof(p) === "string" ? vm.getString(p).slice(0, 4000) : undefined;
    } finally {
      p.dispose();
    }
  };
  const num = (key: string): number | undefined => {
    const p = vm.getProp(h, key);
    try {
      return vm.typeof(p) === "number" ? vm.getNumber(p) : undefined;
    } finally {
      p.dispose();
    }
  };
  if (vm.typeof(h) !== "object") return { name: "thrown value", message: String(vm.dump(h)).slice(0, 2000) };
  return {
    name: str("name") ?? "Error",
    message: str("message") ?? "",
    stack: str("stack"),
    lineNumber: num("lineNumber"),
    code: str("code"),
  };
}

/** A failure of the workflow file itself (syntax error, import, top-level throw), with its line. */
function moduleFailure(info: ThrownInfo, filename: string, stop: StopState): NbError {
  if (info.name === "ReferenceError" && /could not load module/.test(info.message)) {
    return new NbError(
      "invalid_input",
      `${filename}: a workflow cannot import modules (${info.message}); everything it needs comes through wf`,
      { details: { line: thrownLine(info, filename) ?? 1 } },
    );
  }
  return scriptFailure(info, thrownLine(info, filename), stop);
}

/** Evaluate the workflow module; returns its namespace object. */
function evalModule(vm: QuickJSContext, h: Handles, source: string, filename: string, stop: StopState) {
  const r = vm.evalCode(source, filename, { type: "module" });
  if (r.error) {
    h.keep(r.error);
    throw moduleFailure(describeThrown(vm, r.error), filename, stop);
  }
  return h.keep(r.value);
}

function unwrap(
  vm: QuickJSContext,
  h: Handles,
  r: VmCallResult<QuickJSHandle>,
  stop: StopState,
  filename: string,
) {
  if (!r.error) return h.keep(r.value);
  h.keep(r.error);
  const info = describeThrown(vm, r.error);
  throw scriptFailure(info, thrownLine(info, filename), stop);
}

/** Run the microtask queue empty; an interrupt or out-of-memory inside a job fails the pass. */
function drain(rt: QuickJSRuntime, vm: QuickJSContext, stop: StopState, filename: string): void {
  const r = rt.executePendingJobs(-1);
  if (r.error) {
    const info = describeThrown(vm, r.error);
    r.error.dispose();
    throw scriptFailure(info, thrownLine(info, filename), stop);
  }
}

/** The exported metadata of a workflow module (JSON), or its failure with the line. */
export function describeModule(source: string, filename: string, limits: SandboxLimits): unknown {
  return withLimitedContext({ ...limits, stackBytes: STACK_BYTES }, undefined, (vm, stop) => {
    const h = new Handles();
    try {
      const ns = evalModule(vm, h, source, filename, stop);
      const out: Record<string, unknown> = {};
      for (const key of ["title", "description", "whenToUse", "phases", "args"]) {
        const v = h.keep(vm.getProp(ns, key));
        if (vm.typeof(v) !== "undefined") out[key] = vm.dump(v);
      }
      const run = h.keep(vm.getProp(ns, "default"));
      out.hasRun = vm.typeof(run) === "function";
      return JSON.parse(JSON.stringify(out));
    } finally {
      h.dispose();
    }
  });
}

/**
 * One deterministic pass: evaluate the module, start its default export, then deliver each async
 * journal entry in order with the microtask queue drained in between. What is still waiting when
 * the journal runs out becomes the pass's requests.
 */
export function runPass(job: PassJob): PassOutcome {
  return withLimitedContext({ ...job.limits, stackBytes: STACK_BYTES }, undefined, (vm, stop, rt) => {
    const h = new Handles();
    try {
      const setup = JSON.stringify({ args: job.args, journal: job.journal, concurrency: job.concurrency });
      const preludeFn = unwrap(vm, h, vm.evalCode(WF_PRELUDE, "wf-prelude.js"), stop, job.filename);
      const api = unwrap(
        vm,
        h,
        vm.callFunction(preludeFn, vm.undefined, h.keep(vm.newString(setup))),
        stop,
        job.filename,
      );
      const ns = evalModule(vm, h, job.source, job.filename, stop);
      const run = h.keep(vm.getProp(ns, "default"));
      const call = (name: string, ...args: QuickJSHandle[]) =>
        unwrap(
          vm,
          h,
          vm.callFunction(h.keep(vm.getProp(api, name)), vm.undefined, ...args),
          stop,
          job.filename,
        );
      call("start", run);
      drain(rt, vm, stop, job.filename);
      const deliver = h.keep(vm.getProp(api, "deliver"));
      job.journal.forEach((entry: JournalEntry, i: number) => {
        if (entry.kind === "now" || entry.kind === "random") return;
        const r = vm.callFunction(deliver, vm.undefined, h.keep(vm.newNumber(i)));
        if (r.error) {
          r.error.dispose();
          return;
        }
        r.value.dispose();
        drain(rt, vm, stop, job.filename);
      });
      // The script may have caught the interrupt; the run fails all the same.
      if (stop.timedOut || stop.outOfMemory)
        throw scriptFailure({ name: "InternalError", message: "interrupted" }, undefined, stop);
      const collected = call("collect");
      const raw = parseScriptJson(vm.getString(collected)) as RawOutcome;
      return toOutcome(raw, job.filename, stop);
    } finally {
      h.dispose();
    }
  });
}

interface RawOutcome {
  state: "running" | "done" | "failed" | "diverged";
  value?: unknown;
  failure: ThrownInfo | null;
  fatal: string | null;
  requests: PassOutcome["requests"];
  syncEntries: JournalEntry[];
  logs: string[];
  progress: PassOutcome["progress"];
}

function toOutcome(raw: RawOutcome, filename: string, stop: StopState): PassOutcome {
  const base = {
    requests: raw.requests,
    syncEntries: raw.syncEntries,
    logs: raw.logs,
    progress: raw.progress,
  };
  if (raw.state === "diverged") {
    return { ...base, state: "failed", error: { code: "conflict", message: raw.fatal ?? "diverged" } };
  }
  if (raw.state === "failed" && raw.failure) {
    const info = raw.failure;
    const line = thrownLine(info, filename);
    const at = line === undefined ? "" : ` (${filename}:${line})`;
    // QuickJS's own limits (memory, string length, stack) thrown inside the run and caught by the
    // prelude: named as the sandbox names them when it stops a script itself.
    const limit = info.name === "InternalError" ? scriptFailure(info, undefined, stop) : null;
    if (limit?.code === "limit_exceeded") {
      const error: ErrorInfo = { code: limit.code, message: `${limit.message}${at}` };
      if (line !== undefined) error.details = { line };
      return { ...base, state: "failed", error };
    }
    // A plain Error (an activity's failure passed back, or the script's own) is its message; a
    // TypeError, a RangeError… keeps its name, which says what went wrong.
    const error: ErrorInfo = {
      code: info.code && isCode(info.code) ? info.code : "invalid_input",
      message: `${info.name === "Error" ? "" : `${info.name}: `}${info.message}${at}`,
    };
    if (line !== undefined) error.details = { line };
    return { ...base, state: "failed", error };
  }
  if (raw.state === "done") {
    const size = JSON.stringify(raw.value ?? null).length;
    if (size > MAX_RESULT_CHARS)
      return {
        ...base,
        state: "failed",
        error: {
          code: "limit_exceeded",
          message: `The workflow's result is ${size} characters of JSON; the limit is ${MAX_RESULT_CHARS}. Return a summary and leave the bulk in files.`,
        },
      };
    return { ...base, state: "done", value: raw.value ?? null };
  }
  return { ...base, state: "running" };
}

/** The largest result a run keeps (JSON characters). */
const MAX_RESULT_CHARS = 1024 * 1024;

const CODES: ReadonlySet<string> = new Set(ERROR_CODES);

function isCode(c: string): c is ErrorInfo["code"] {
  return CODES.has(c);
}
