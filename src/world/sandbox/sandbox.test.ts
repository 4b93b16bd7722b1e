import { describe, expect, it } from "vitest";
import { NbError } from "../../core/errors.js";
import { loadSandbox, runScript, runScriptSync } from "./index.js";

/** Run a script and return the NbError it fails with. */
async function failure(p: Promise<unknown>): Promise<NbError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(NbError);
  return e as NbError;
}

const api = {
  math: {
    add: (a: unknown, b: unknown) => (a as number) + (b as number),
    echo: (v: unknown) => v,
    nothing: () => undefined,
  },
  host: {
    conflict: () => {
      throw new NbError("conflict", "instant taken", { details: { existingSliceId: "s1" } });
    },
    leak: () => {
      throw new Error("cannot open /secret/host/dir/world.sqlite");
    },
  },
};

describe("runScript", () => {
  it("returns the function body's return value after a JSON round trip", async () => {
    expect((await runScript({ code: "return 1 + 2" })).value).toBe(3);
    expect((await runScript({ code: "return 'text'" })).value).toBe("text");
    expect((await runScript({ code: "return {a: [1, {b: null}], u: undefined}" })).value).toEqual({
      a: [1, { b: null }],
    });
    expect((await runScript({ code: "const x = 1;" })).value).toBeUndefined();
    expect((await runScript({ code: "return 12n" })).value).toBe(12);
  });

  it("calls injected host functions with JSON arguments and results", async () => {
    const r = await runScript({
      code: "return [math.add(2, 3), math.echo({k: [1, 'é']}), math.nothing(), typeof math.add]",
      api,
    });
    expect(r.value).toEqual([5, { k: [1, "é"] }, null, "function"]);
  });

  it("gives host functions fresh copies, never sandbox objects", async () => {
    const seen: unknown[] = [];
    const r = await runScript({
      code: "const o = {n: 1}; math.keep(o); o.n = 2; const back = math.get(); back.n = 99; return [o.n, math.get().n]",
      api: {
        math: {
          keep: (v: unknown) => {
            seen.push(v);
          },
          get: () => seen[0],
        },
      },
    });
    expect(r.value).toEqual([2, 1]);
    expect(seen).toEqual([{ n: 1 }]);
  });

  it("turns host errors into script exceptions with message and code", async () => {
    const r = await runScript({
      code: "try { host.conflict() } catch (e) { return [e instanceof Error, e.message, e.code, e.details] }",
      api,
    });
    expect(r.value).toEqual([true, "instant taken", "conflict", { existingSliceId: "s1" }]);

    const uncaught = await failure(runScript({ code: "\n\nhost.conflict()", api }));
    expect(uncaught.code).toBe("conflict");
    expect(uncaught.message).toBe("Script failed at line 3: Error: instant taken");
  });

  it("scrubs host paths from host error messages", async () => {
    const r = await runScript({
      code: "try { host.leak() } catch (e) { return e.message }",
      api,
      hidePaths: ["/secret/host/dir"],
    });
    expect(r.value).toBe("cannot open <root>/world.sqlite");
  });

  it("captures console output instead of printing it", async () => {
    const r = await runScript({ code: "console.log('a', 1, {b: 2}); console.error('bad'); return 0" });
    expect(r.console).toEqual(['a 1 {"b":2}', "[error] bad"]);
  });

  it("caps console output with a marker line", async () => {
    const r = await runScript({
      code: "for (let i = 0; i < 1000; i++) console.log('x'.repeat(100)); return 1",
      limits: { maxConsoleChars: 1000 },
    });
    expect(r.console).toHaveLength(11);
    expect(r.console.at(-1)).toBe("[console output truncated]");
  });

  it("wraps script errors with the message and the script line", async () => {
    const e = await failure(
      runScript({ code: "const a = 1;\nconst b = 2;\nthrow new TypeError('bad ' + (a + b));" }),
    );
    expect(e.code).toBe("invalid_input");
    expect(e.message).toBe("Script failed at line 3: TypeError: bad 3");
    expect(e.details).toMatchObject({ line: 3, name: "TypeError" });

    const syntax = await failure(runScript({ code: "const ok = 1;\nconst = broken;" }));
    expect(syntax.message).toMatch(/^Script failed at line 2: SyntaxError: /);

    const thrown = await failure(runScript({ code: "throw {reason: 'no'}" }));
    expect(thrown.message).toContain('{"reason":"no"}');
  });

  it("injects JSON values as frozen globals", async () => {
    const r = await runScript({
      code: "input.n = 8; return [input.n, input.list.length, Object.isFrozen(input.list)]",
      values: { input: { n: 7, list: [1, 2, 3] } },
    });
    expect(r.value).toEqual([7, 3, true]);
  });

  it("runs synchronously once loaded, also nested inside a host function", async () => {
    await loadSandbox();
    const r = runScriptSync({
      code: "return nested.run('return 20 + 1') * 2",
      api: { nested: { run: (code: unknown) => runScriptSync({ code: String(code) }).value } },
    });
    expect(r.value).toBe(42);
  });

  it("rejects host functions that return promises", async () => {
    const e = await failure(
      runScript({ code: "return host.later()", api: { host: { later: async () => 1 } } }),
    );
    expect(e.message).toContain("must be synchronous");
  });

  it("with a clock, shows one instant and a seeded Math.random, the same on every run", async () => {
    const code = `class Later extends Date {}
      return [Date.now(), new Date().getTime(), Date() === new Date(1_700_000_000_000).toString(), new Date(5).getTime(), new Date(2000, 0).getFullYear(),
        new Date() instanceof Date, new Date().constructor === Date, new Later().getTime(), Date.UTC(1970, 0, 2),
        Math.random(), Math.random()]`;
    const clock = { now: 1_700_000_000_000, seed: 42 };
    const first = (await runScript({ code, clock })).value as unknown[];
    expect(first.slice(0, 9)).toEqual([
      clock.now,
      clock.now,
      true,
      5,
      2000,
      true,
      true,
      clock.now,
      86_400_000,
    ]);
    expect(first[9]).not.toBe(first[10]);
    expect((await runScript({ code, clock })).value).toEqual(first);
    const reseeded = (await runScript({ code, clock: { ...clock, seed: 43 } })).value as unknown[];
    expect(reseeded[9]).not.toBe(first[9]);
    const before = Date.now();
    const free = (await runScript({ code: "return [Date.now(), Math.random() !== Math.random()]" })).value;
    expect((free as [number, boolean])[0]).toBeGreaterThanOrEqual(before);
    expect((free as [number, boolean])[1]).toBe(true);
  });
});
