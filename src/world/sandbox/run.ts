import type { QuickJSContext, QuickJSHandle, VmCallResult } from "quickjs-emscripten";
import { NbError } from "../../core/errors.js";
import { callHost, flattenApi, type HostApi, parseScriptJson } from "./bridge.js";
import { withLimitedContext } from "./context.js";
import { type StopState, scriptFailure, scriptLine, type ThrownInfo } from "./failures.js";
import { loadSandbox } from "./module.js";
import { PRELUDE } from "./prelude.js";

/** Resource limits of one run. */
export interface SandboxLimits {
  /** Wall-clock budget; the interpreter is interrupted when it runs out. */
  timeoutMs: number;
  memoryBytes: number;
  /** QuickJS stack budget (bounds recursion depth). */
  stackBytes: number;
  /** Longest result text (a string result, or the compact JSON of any other value). */
  maxResultChars: number;
  /** Console output kept; the rest is dropped with a marker line. */
  maxConsoleChars: number;
  /** Longest argument list, and longest result, (as JSON) one host call passes across. */
  maxCallChars: number;
}

export const DEFAULT_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  timeoutMs: 5_000,
  memoryBytes: 64 * 1024 * 1024,
  stackBytes: 256 * 1024,
  maxResultChars: 10 * 1024,
  maxConsoleChars: 64 * 1024,
  maxCallChars: 4 * 1024 * 1024,
});

export interface SandboxOptions {
  /** The body of a function: its `return` value is the result. */
  code: string;
  /** Host functions, injected as frozen global objects (`{world: {time: {now}}}` → `world.time.now()`). */
  api?: HostApi;
  /** JSON values injected as frozen globals. */
  values?: Record<string, unknown>;
  limits?: Partial<SandboxLimits>;
  signal?: AbortSignal;
  /** Host paths scrubbed from host error messages before the script sees them. */
  hidePaths?: readonly string[];
  /** Name shown in stack traces. */
  filename?: string;
  /** Freeze time and seed Math.random for this run (see ScriptClock). */
  clock?: ScriptClock;
}

/**
 * What a script sees as "now" and where its random numbers start: a re-run with the same clock on
 * the same data makes the same calls.
 */
export interface ScriptClock {
  /** Milliseconds since the epoch, returned by `Date.now()` and used by `new Date()`. */
  now: number;
  /** Seed of `Math.random` (a 32-bit integer). */
  seed: number;
}

export interface SandboxResult {
  /** The returned value after a JSON round trip (undefined when the script returned nothing). */
  value: unknown;
  /** Captured console lines; `warn`/`error`/`info`/`debug` lines carry a `[level]` prefix. */
  console: string[];
}

/** Run a script in a fresh QuickJS runtime (loading the shared module first if needed). */
export async function runScript(opts: SandboxOptions): Promise<SandboxResult> {
  await loadSandbox();
  return runScriptSync(opts);
}

/**
 * Run a script synchronously in a fresh runtime and context of the already loaded module
 * (see `loadSandbox`). Throws NbError: `timeout`, `aborted`, `limit_exceeded`, or the script's
 * own failure with its message and line.
 */
export function runScriptSync(opts: SandboxOptions): SandboxResult {
  const limits: SandboxLimits = { ...DEFAULT_LIMITS, ...opts.limits };
  return withLimitedContext(limits, opts.signal, (vm, stop) => new Run(vm, opts, limits, stop).execute());
}

/** One execution inside a fresh context; owns every handle it creates. */
class Run {
  private readonly handles: QuickJSHandle[] = [];
  private readonly consoleLines: string[] = [];
  private consoleChars = 0;
  private readonly filename: string;
  private describeFn: QuickJSHandle | null = null;

  constructor(
    private readonly vm: QuickJSContext,
    private readonly opts: SandboxOptions,
    private readonly limits: SandboxLimits,
    private readonly stop: StopState,
  ) {
    this.filename = opts.filename ?? "script.js";
  }

  execute(): SandboxResult {
    let settled = false;
    try {
      const helpers = this.setup();
      const encodeFn = this.keep(this.vm.getProp(helpers, "encode"));
      const compiled = this.script(this.vm.evalCode(`(function () {\n${this.opts.code}\n})`, this.filename));
      const value = this.script(this.vm.callFunction(compiled, this.vm.undefined));
      const encoded = this.vm.callFunction(encodeFn, this.vm.undefined, value);
      if (encoded.error) {
        this.keep(encoded.error);
        const info = this.describe(encoded.error);
        if (info.name === "TypeError" || info.name === "RangeError") {
          throw new NbError(
            "invalid_input",
            `The script's return value is not JSON-serialisable: ${info.message}`,
          );
        }
        throw scriptFailure(info, undefined, this.stop);
      }
      const result = { value: this.decodeResult(this.keep(encoded.value)), console: this.consoleLines };
      settled = true;
      return result;
    } catch (e) {
      settled = e instanceof NbError;
      throw settled && this.consoleLines.length > 0 ? this.withConsole(e as NbError) : e;
    } finally {
      try {
        for (const h of this.handles.reverse()) if (h.alive) h.dispose();
      } catch (e) {
        // After a host-level failure the WASM state is suspect; keep the original error.
        // biome-ignore lint/correctness/noUnsafeFinally: a failed dispose after a clean run must surface.
        if (settled) throw e;
      }
    }
  }

  /** The same failure, carrying what the script logged before it failed. */
  private withConsole(e: NbError): NbError {
    const base = e.details && typeof e.details === "object" ? (e.details as Record<string, unknown>) : {};
    return new NbError(e.code, e.message, {
      fields: e.fields,
      details: { ...base, console: this.consoleLines },
    });
  }

  private keep<T extends QuickJSHandle>(h: T): T {
    this.handles.push(h);
    return h;
  }

  /** Install the bridge and globals; returns the prelude's helper object. */
  private setup(): QuickJSHandle {
    const { vm } = this;
    const { spec, functions } = flattenApi(this.opts.api ?? {});
    const hidePaths = this.opts.hidePaths ?? [];
    const call = this.keep(
      vm.newFunction("call", (nameH, argsH) => {
        const size = this.stringLength(argsH);
        const name = vm.getString(nameH);
        const tooLarge = (what: string, n: number) =>
          vm.newString(
            JSON.stringify({
              ok: false,
              code: "limit_exceeded",
              message: `${name}: ${what} too large (${n} characters of JSON; the limit is ${this.limits.maxCallChars})`,
            }),
          );
        if (size > this.limits.maxCallChars) return tooLarge("arguments", size);
        const out = callHost(functions, name, vm.getString(argsH), hidePaths);
        // A result is parsed inside the sandbox, where it would slip past the memory limit.
        return out.length > this.limits.maxCallChars ? tooLarge("result", out.length) : vm.newString(out);
      }),
    );
    const log = this.keep(vm.newFunction("log", (levelH, textH) => this.log(vm.getString(levelH), textH)));
    const prelude = this.internal(vm.evalCode(PRELUDE, "prelude.js"));
    const helpers = this.internal(
      vm.callFunction(
        prelude,
        vm.undefined,
        call,
        log,
        this.keep(vm.newString(JSON.stringify(spec))),
        this.keep(vm.newString(JSON.stringify(this.opts.values ?? {}))),
        this.keep(vm.newString(JSON.stringify(this.opts.clock ?? null))),
      ),
    );
    this.describeFn = this.keep(vm.getProp(helpers, "describe"));
    return helpers;
  }

  private log(level: string, textH: QuickJSHandle): void {
    const room = this.limits.maxConsoleChars - this.consoleChars;
    if (room < 0) return;
    const size = this.stringLength(textH);
    const prefix = level === "log" ? "" : `[${level}] `;
    if (size + prefix.length > room) {
      this.consoleLines.push("[console output truncated]");
      this.consoleChars = this.limits.maxConsoleChars + 1;
      return;
    }
    this.consoleLines.push(prefix + this.vm.getString(textH));
    this.consoleChars += size + prefix.length;
  }

  private stringLength(h: QuickJSHandle): number {
    const lh = this.vm.getProp(h, "length");
    try {
      return this.vm.getNumber(lh);
    } finally {
      lh.dispose();
    }
  }

  /** Unwrap a result of the user's code, turning a throw into the script's failure. */
  private script(r: VmCallResult<QuickJSHandle>): QuickJSHandle {
    if (!r.error) return this.keep(r.value);
    this.keep(r.error);
    const info = this.describe(r.error);
    const lines = this.opts.code.split("\n").length;
    throw scriptFailure(info, scriptLine(info, this.filename, lines), this.stop);
  }

  /** Unwrap a result of the sandbox's own setup code. */
  private internal(r: VmCallResult<QuickJSHandle>): QuickJSHandle {
    if (!r.error) return this.keep(r.value);
    this.keep(r.error);
    throw scriptFailure(this.describe(r.error), undefined, this.stop);
  }

  /**
   * Describe a thrown value. Interrupts and out-of-memory are recognised from the message
   * without running script code; anything else is described by the prelude, under a fresh short
   * deadline and a little extra memory so a hostile error object cannot stall the host.
   */
  private describe(errH: QuickJSHandle): ThrownInfo {
    const { vm } = this;
    if (vm.typeof(errH) === "object") {
      const name = this.plainString(errH, "name");
      const message = this.plainString(errH, "message");
      if (name === "InternalError" && message !== undefined) {
        const stack = this.plainString(errH, "stack");
        return { name, message, stack: stack?.slice(0, 2000) };
      }
    }
    if (!this.describeFn) return { name: "Error", message: "the sandbox could not start" };
    const rt = vm.runtime;
    const until = Date.now() + 250;
    rt.setInterruptHandler(() => Date.now() > until);
    rt.setMemoryLimit(this.limits.memoryBytes + 1024 * 1024);
    const r = vm.callFunction(this.describeFn, vm.undefined, errH);
    if (r.error) {
      r.error.dispose();
      return { name: "Error", message: "the script threw a value that cannot be described" };
    }
    const h = this.keep(r.value);
    return parseScriptJson(vm.getString(h)) as ThrownInfo;
  }

  /** A string property of a thrown object, or undefined when it is not a plain, short string. */
  private plainString(h: QuickJSHandle, key: string): string | undefined {
    let p: QuickJSHandle | undefined;
    try {
      p = this.vm.getProp(h, key);
      if (this.vm.typeof(p) !== "string") return undefined;
      return this.stringLength(p) > 100_000 ? undefined : this.vm.getString(p);
    } catch {
      return undefined;
    } finally {
      p?.dispose();
    }
  }

  private decodeResult(enc: QuickJSHandle): unknown {
    const size = this.stringLength(enc) - 1;
    if (size > this.limits.maxResultChars) {
      throw new NbError(
        "limit_exceeded",
        `The script's result is ${size} characters of text; the limit is ${this.limits.maxResultChars} ` +
          `(${Math.round(this.limits.maxResultChars / 1024)} KiB). Return a shorter summary instead.`,
        { details: { size, limit: this.limits.maxResultChars } },
      );
    }
    const text = this.vm.getString(enc);
    if (text === "u") return undefined;
    if (text[0] === "s") return text.slice(1);
    return parseScriptJson(text.slice(1));
  }
}
