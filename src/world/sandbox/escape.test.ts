import { describe, expect, it } from "vitest";
import { NbError } from "../../core/errors.js";
import { runScript, runScriptContained } from "./index.js";

/**
 * The sandbox-escape suite: every attempt must fail cleanly (a stable NbError, no host access)
 * and the next run must still work with a clean context.
 */
const api = {
  world: {
    add: (a: unknown, b: unknown) => (a as number) + (b as number),
    echo: (v: unknown) => v,
    big: () => "y".repeat(5_000_000),
    probe: (v: unknown) => {
      const o = v as Record<string, unknown>;
      return {
        protoIsObject: Object.getPrototypeOf(o) === Object.prototype,
        hostPolluted: ({} as Record<string, unknown>).polluted !== undefined,
        keys: Object.keys(o),
      };
    },
  },
};

async function failure(code: string, limits = {}): Promise<NbError> {
  const e = await runScript({ code, api, limits }).then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(NbError);
  return e as NbError;
}

/** After every attempt, a normal run must still work and see pristine builtins. */
async function stillHealthy(): Promise<void> {
  const r = await runScript({
    code: "return [world.add(1, 2), ({}).polluted, typeof leaked, JSON.stringify({a: 1}), [1, 2].map(x => x * 2)]",
    api,
  });
  expect(r.value).toEqual([3, null, "undefined", '{"a":1}', [2, 4]]);
}

const HOST_GLOBALS = [
  "process",
  "require",
  "module",
  "exports",
  "global",
  "fetch",
  "Buffer",
  "setTimeout",
  "setInterval",
  "queueMicrotask",
  "XMLHttpRequest",
  "WebAssembly",
  "std",
  "os",
  "__dirname",
  "__filename",
];

describe("sandbox escapes", () => {
  it("constructor chains reach only the sandbox's own global", async () => {
    const r = await runScript({
      code: `
        const viaFn = (function () {}).constructor("return this")();
        const viaThis = this.constructor.constructor("return this")();
        const viaApi = world.add.constructor("return this")();
        const viaArrow = (() => 0).constructor.constructor("return globalThis")();
        const names = ${JSON.stringify(HOST_GLOBALS)};
        return [viaFn, viaThis, viaApi, viaArrow].map(g => names.filter(n => typeof g[n] !== "undefined"));
      `,
      api,
    });
    expect(r.value).toEqual([[], [], [], []]);
    const e = await failure('return this.constructor.constructor("return process")().env');
    expect(e.code).toBe("invalid_input");
    expect(e.message).toContain("ReferenceError");
    await stillHealthy();
  });

  it("globalThis holds only standard builtins, the injected API and console", async () => {
    const r = await runScript({
      code: "return Object.getOwnPropertyNames(globalThis)",
      api,
    });
    const names = r.value as string[];
    for (const n of HOST_GLOBALS) expect(names).not.toContain(n);
    expect(names).toContain("world");
    expect(names).toContain("console");
    const imports = await failure('import fs from "fs"; return fs');
    expect(imports.message).toContain("SyntaxError");
    await stillHealthy();
  });

  it("prototype pollution stays inside one run and never reaches the host", async () => {
    const r = await runScript({
      code: `
        Object.prototype.polluted = "yes";
        Array.prototype.map = function () { return "hijacked"; };
        JSON.stringify = function () { return "{broken"; };
        JSON.parse = function () { return {ok: true, value: "forged"}; };
        world.add = function () { return -1; };
        globalThis.leaked = true;
        const probe = world.probe(JSON.constructor.prototype.constructor === Object
          ? {"__proto__": {"polluted": true}, plain: 1} : {});
        return [world.add(2, 2), probe];
      `,
      api,
    });
    expect(r.value).toEqual([4, { protoIsObject: true, hostPolluted: false, keys: ["plain"] }]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await stillHealthy();
  });

  it("the injected API is frozen", async () => {
    const r = await runScript({
      code: `"use strict";
        const out = [];
        try { world.add = null; } catch (e) { out.push(e.name); }
        try { delete globalThis.world; } catch (e) { out.push(e.name); }
        return [out, Object.isFrozen(world), world.add(1, 1)];`,
      api,
    });
    expect(r.value).toEqual([["TypeError", "TypeError"], true, 2]);
  });

  it("infinite loops are interrupted, even inside try/catch", async () => {
    for (const code of ["while (true) {}", "for (;;) { try { while (true) {} } catch (e) {} }"]) {
      const e = await failure(code, { timeoutMs: 100 });
      expect(e.code).toBe("timeout");
      expect(e.message).toBe("Script timed out after 0.1 s at line 1");
    }
    const viaHost = await failure("while (true) world.add(1, 1)", { timeoutMs: 100 });
    expect(viaHost.code).toBe("timeout");
    await stillHealthy();
  });

  it("an aborted signal interrupts the script", async () => {
    const ctl = new AbortController();
    ctl.abort();
    const e = await runScript({ code: "while (true) {}", signal: ctl.signal }).catch((err: NbError) => err);
    expect((e as NbError).code).toBe("aborted");
  });

  it("memory bombs hit the memory limit", async () => {
    const limits = { memoryBytes: 8 * 1024 * 1024 };
    for (const code of [
      "const a = []; while (true) a.push({i: a.length, s: 'y' + a.length});",
      "try { const a = []; while (true) a.push(new Array(1000).fill(1)); } catch (e) { return 'survived'; }",
      "const a = []; for (let k = 0; ; k++) a.push(new Array(1e6).fill(k));",
    ]) {
      const e = await failure(code, limits);
      expect(e.code).toBe("limit_exceeded");
      expect(e.message).toContain("memory limit (8 MiB)");
    }
    const doubling = await failure("let s = 'x'; while (true) s += s + s;", limits);
    expect(doubling.code).toBe("limit_exceeded");
    await stillHealthy();
  });

  it("deep recursion hits the stack limit and can be caught by the script", async () => {
    const e = await failure("function f(n) { return f(n + 1) + 1; } return f(0);");
    expect(e.code).toBe("limit_exceeded");
    expect(e.message).toContain("stack");
    const caught = await runScript({
      code: "function f(n) { return f(n + 1) + 1; } try { f(0); } catch (e) { return String(e); }",
    });
    expect(caught.value).toBe("InternalError: stack overflow");
    await stillHealthy();
  });

  it("nesting too deep for the host stack fails cleanly and the sandbox recovers", async () => {
    const e = await failure(
      "let o = {}; for (let i = 0; i < 200000; i++) o = {o}; return JSON.stringify(o).length;",
    );
    expect(e.code).toBe("limit_exceeded");
    const parser = await failure(`return ${"(".repeat(200000)}1${")".repeat(200000)};`);
    expect(parser.code).toBe("limit_exceeded");
    await stillHealthy();
  });

  it("a huge return value is refused with the limit in the message", async () => {
    for (const code of ["return 'x'.repeat(20000)", "return Array.from({length: 5000}, (_, i) => i)"]) {
      const e = await failure(code);
      expect(e.code).toBe("limit_exceeded");
      expect(e.message).toContain("the limit is 10240 (10 KiB)");
    }
    const circular = await failure("const o = {}; o.self = o; return o;");
    expect(circular.message).toContain("not JSON-serialisable");
    await stillHealthy();
  });

  it("a huge thrown message, argument or host result cannot flood either side", async () => {
    const e = await failure("throw new Error('m'.repeat(5_000_000))");
    expect(e.message.length).toBeLessThan(3000);
    const big = await runScript({
      code: "try { world.echo('z'.repeat(5_000_000)); } catch (e) { return [e.code, e.message]; }",
      api,
    });
    expect(big.value).toEqual([
      "limit_exceeded",
      "world.echo: arguments too large (5000004 characters of JSON; the limit is 4194304)",
    ]);
    const result = await runScript({
      code: "try { world.big(); } catch (e) { return [e.code, e.message]; }",
      api,
    });
    expect(result.value).toEqual([
      "limit_exceeded",
      "world.big: result too large (5000022 characters of JSON; the limit is 4194304)",
    ]);
    await stillHealthy();
  });

  it("a builtin that never checks the interrupt is stopped by killing its worker", () => {
    for (const code of [
      "return Array.prototype.indexOf.call({length: 2**40}, 1)",
      "return new Array(2**31).join('x')",
    ]) {
      const e = (() => {
        try {
          runScriptContained({ code, limits: { timeoutMs: 300 } });
        } catch (err) {
          return err;
        }
      })();
      expect(e).toBeInstanceOf(NbError);
      expect((e as NbError).code).toBe("timeout");
      expect((e as NbError).message).toBe("Script timed out after 0.3 s");
    }
    expect(runScriptContained({ code: "return [1, 2].map(x => x * 3)" }).value).toEqual([3, 6]);
  });
});
