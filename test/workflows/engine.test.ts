import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { NbError } from "../../src/core/errors.js";
import { DEFAULT_WORKFLOW_SETTINGS, type WorkflowSettings } from "../../src/workflows/config.js";
import type { ActivityContext, ActivityHost } from "../../src/workflows/engine/activity-host.js";
import { workflowNotices } from "../../src/workflows/notices.js";
import { closeWorkflowSandbox } from "../../src/workflows/sandbox/index.js";
import { WorkflowRuns } from "../../src/workflows/service.js";
import { WorkflowStore } from "../../src/workflows/store/index.js";
import { makeTestBed, type TestBed } from "../helpers.js";

/** An activity host that answers `session.invoke` with the message echoed, recording every call. */
class EchoHost implements ActivityHost {
  calls: Array<{ kind: string; params: any }> = [];
  running = 0;
  maxRunning = 0;
  delayMs = 0;
  /** Messages whose invocation never ends (until aborted). */
  hang = new Set<string>();
  /** Messages whose invocation never ends, whatever its signal says. */
  deaf = new Set<string>();
  async run(kind: string, params: any, ctx: ActivityContext) {
    this.calls.push({ kind, params });
    this.running++;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    try {
      if (this.hang.has(params.message))
        await new Promise((_, reject) =>
          ctx.signal.addEventListener("abort", () => reject(new NbError("aborted", "aborted"))),
        );
      if (this.deaf.has(params.message)) await new Promise(() => undefined);
      if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
      if (kind === "session.invoke") {
        if (params.message === "fail") throw new NbError("not_found", "no such agent");
        return { value: { status: "completed", message: `r:${params.message}`, data: null }, tokens: 10 };
      }
      return { value: { kind } };
    } finally {
      this.running--;
    }
  }
}

let bed: TestBed;
let store: WorkflowStore;
let host: EchoHost;
const settings: WorkflowSettings = {
  ...DEFAULT_WORKFLOW_SETTINGS,
  passTimeoutMs: 2000,
  passMemoryBytes: 32 * 1024 * 1024,
};

function runs(s: WorkflowSettings = settings) {
  return new WorkflowRuns({ workspace: bed.ws, project: bed.project, store, host, settings: s });
}

async function runScript(script: string, args: unknown = {}, s?: WorkflowSettings) {
  const r = runs(s);
  const run = await r.start({ target: { script }, args });
  return { r, run: await r.drive(run.id) };
}

beforeEach(() => {
  bed = makeTestBed();
  store = WorkflowStore.forWorkspace(bed.ws);
  host = new EchoHost();
});
afterEach(() => {
  store.close();
  bed.cleanup();
});
afterAll(() => closeWorkflowSandbox());

const invoke = (m: string) => `(await wf.agents.invoke("s1", { message: ${JSON.stringify(m)} })).message`;

describe("deterministic re-execution", () => {
  it("runs a fan-out within its bound, keeps input order and journals every activity once", async () => {
    host.delayMs = 20;
    const { run } = await runScript(`
      export default async function run(wf) {
        const items = ["a", "b", "c", "d", "e", "f", "g", "h"];
        return wf.map(items, async (x, i) => (await wf.agents.invoke("s" + i, { message: x })).message, { concurrency: 3 });
      }`);
    expect(run.status).toBe("completed");
    expect(run.result).toEqual(["r:a", "r:b", "r:c", "r:d", "r:e", "r:f", "r:g", "r:h"]);
    expect(host.calls).toHaveLength(8);
    expect(host.maxRunning).toBe(3);
    expect(store.journal(run.id)).toHaveLength(8);
    expect(run.usage).toEqual({ invocations: 8, tokens: 80 });
  });

  it("clamps a fan-out to the configured maximum, and bounds a raw Promise.all by it too", async () => {
    host.delayMs = 20;
    const capped = { ...settings, concurrency: { default: 2, max: 3 } };
    await runScript(
      `export default async function run(wf) {
        return wf.map([1,2,3,4,5,6], async (x) => (await wf.agents.invoke("s" + x, { message: "m" + x })).message, { concurrency: 50 });
      }`,
      {},
      capped,
    );
    expect(host.maxRunning).toBe(3);
    host.maxRunning = 0;
    const { run } = await runScript(
      `export default async function run(wf) {
        return Promise.all([1,2,3,4,5,6].map((x) => wf.agents.invoke("t" + x, { message: "m" + x })));
      }`,
      {},
      capped,
    );
    expect(run.status).toBe("completed");
    expect(host.maxRunning).toBe(3);
  });

  it("serialises activities on one session", async () => {
    host.delayMs = 20;
    await runScript(`export default async function run(wf) {
      return wf.all([1,2,3].map((x) => () => wf.agents.invoke("same", { message: "m" + x })));
    }`);
    expect(host.maxRunning).toBe(1);
  });

  it("asks, waits durably, validates answers (nothing written on error), and resumes without re-running the prefix", async () => {
    const script = `export default async function run(wf) {
      const draft = ${invoke("draft")};
      const ok = await wf.ask({ kind: "approve", title: "Keep the draft?", key: "keep" });
      const tone = await wf.ask({ kind: "select", title: "Tone", key: "tone", options: [{ id: "dark", label: "Dark" }, { id: "light", label: "Light" }] });
      return { draft, ok, tone, after: ${invoke("after")} };
    }`;
    const r = runs();
    const started = await r.start({ target: { script } });
    const waiting = await r.drive(started.id);
    expect(waiting.status).toBe("waiting");
    // The two asks are independent of each other? No: the second comes after the first, so one is pending.
    expect(store.asks(started.id).map((a) => a.key)).toEqual(["keep"]);
    const journalBefore = store.journal(started.id).length;
    const bad: Array<[unknown, string]> = [
      [{}, "/keep"],
      [{ keep: "yes" }, "/keep"],
      [{ keep: true, extra: 1 }, "/extra"],
      [[true], ""],
      ["true", ""],
    ];
    for (const [answers, pointer] of bad) {
      const e = (() => {
        try {
          r.answer(started.id, answers);
        } catch (x) {
          return x as NbError;
        }
      })();
      expect(e?.code).toBe("invalid_input");
      expect(e?.fields?.map((f) => f.pointer)).toContain(pointer);
      expect(store.journal(started.id)).toHaveLength(journalBefore);
      expect(store.run(started.id).status).toBe("waiting");
    }
    // A fresh service (as after a restart) answers and resumes.
    const r2 = runs();
    r2.answer(started.id, { keep: false });
    const again = await r2.drive(started.id);
    expect(again.status).toBe("waiting");
    expect(store.asks(started.id)[0].key).toBe("tone");
    for (const [answers, pointer] of [
      [{ tone: "grey" }, "/tone"],
      [{ tone: ["dark"] }, "/tone"],
    ] as Array<[unknown, string]>) {
      expect(() => r2.answer(started.id, answers)).toThrow(NbError);
      expect(pointer).toBe("/tone");
    }
    r2.answer(started.id, { tone: "dark" });
    const done = await r2.drive(started.id);
    expect(done.status).toBe("completed");
    expect(done.result).toEqual({ draft: "r:draft", ok: false, tone: "dark", after: "r:after" });
    // "draft" ran once, although the script ran from the start after each answer.
    expect(host.calls.map((c) => c.params.message)).toEqual(["draft", "after"]);
  });

  it("validates multi-select and text answers", async () => {
    const r = runs();
    const run = await r.start({
      target: {
        script: `export default async function run(wf) {
          return Promise.all([
            wf.ask({ kind: "select", multi: true, title: "Pick", key: "pick", options: [{ id: "a", label: "A" }, { id: "b", label: "B" }] }),
            wf.ask({ kind: "text", title: "Name" }),
          ]);
        }`,
      },
    });
    expect((await r.drive(run.id)).status).toBe("waiting");
    const keys = store.asks(run.id).map((a) => a.key);
    expect(keys).toEqual(["pick", "ask-1"]);
    const fieldsOf = (answers: unknown) => {
      try {
        r.answer(run.id, answers);
      } catch (e) {
        return (e as NbError).fields?.map((f) => f.pointer);
      }
    };
    expect(fieldsOf({ pick: [], "ask-1": "Mira" })).toEqual(["/pick"]);
    expect(fieldsOf({ pick: ["a", "z"], "ask-1": "Mira" })).toEqual(["/pick"]);
    expect(fieldsOf({ pick: "a", "ask-1": "  " })).toEqual(["/pick", "/ask-1"]);
    expect(fieldsOf({ pick: ["b", "a"] })).toEqual(["/ask-1"]);
    r.answer(run.id, { pick: ["b", "a"], "ask-1": "Mira" });
    expect((await r.drive(run.id)).result).toEqual([["b", "a"], "Mira"]);
  });

  it("refuses an invalid ask spec as an error thrown at the call", async () => {
    const { run } = await runScript(`export default async function run(wf) {
      try { await wf.ask({ kind: "select", title: "x" }); } catch (e) { return e.code + " " + e.message; }
    }`);
    expect(run.result).toContain("invalid_input");
    expect(run.result).toContain("/options");
  });

  it("journals a failed activity and throws it into the script at that call", async () => {
    const { run } = await runScript(`export default async function run(wf) {
      try { ${invoke("fail")}; } catch (e) { return [e.code, e.message]; }
    }`);
    expect(run.result).toEqual(["not_found", "no such agent"]);
    expect(store.journal(run.id)[0]).toMatchObject({ ok: false, error: { code: "not_found" } });
  });

  it("refuses Date.now(), new Date() and Math.random(); wf.now() and wf.random() are journaled", async () => {
    for (const expr of ["Date.now()", "new Date()", "Math.random()", "Date()"]) {
      const { run } = await runScript(`export default async function run(wf) { return ${expr}; }`);
      expect(run.status).toBe("failed");
      expect(run.error?.message).toMatch(/not available in a workflow/);
    }
    const script = `export default async function run(wf) {
      const t = wf.now(), x = wf.random();
      const y = ${invoke("one")};
      return { t, x, same: wf.now() >= t, date: new Date(t).getTime() === t, y };
    }`;
    const { run } = await runScript(script);
    expect(run.status).toBe("completed");
    const result = run.result as { t: number; x: number };
    const journal = store.journal(run.id);
    expect(journal.filter((e) => e.kind === "now").map((e) => e.value)[0]).toBe(result.t);
    expect(journal.filter((e) => e.kind === "random").map((e) => e.value)).toEqual([result.x]);
  });

  it("fails the run (not the process) on an infinite loop or a memory bomb, and the next run works", async () => {
    const quick = { ...settings, passTimeoutMs: 300 };
    const loop = await runScript(`export default async function run(wf) { for (;;) {} }`, {}, quick);
    expect(loop.run.status).toBe("failed");
    expect(loop.run.error?.code).toBe("timeout");
    const bomb = await runScript(
      `export default async function run(wf) { const a = []; for (;;) a.push(new Array(100000).fill("x")); }`,
      {},
      quick,
    );
    expect(bomb.run.status).toBe("failed");
    expect(["limit_exceeded", "timeout"]).toContain(bomb.run.error?.code);
    const ok = await runScript(`export default async function run(wf) { return 1 + 1; }`);
    expect(ok.run.result).toBe(2);
  });

  it("cannot reach host globals, the filesystem or the network", async () => {
    const { run } = await runScript(`export default async function run(wf) {
      const names = ["process", "require", "module", "fetch", "Buffer", "setTimeout", "XMLHttpRequest", "WebAssembly", "std", "os", "__dirname"];
      const g = (function () {}).constructor("return this")();
      const viaWf = wf.log.constructor("return this")();
      return { global: names.filter((n) => typeof g[n] !== "undefined"), viaWf: names.filter((n) => typeof viaWf[n] !== "undefined") };
    }`);
    expect(run.result).toEqual({ global: [], viaWf: [] });
    const imp = await runScript(
      `import fs from "fs";\nexport default async function run() { return fs.readFileSync("/etc/passwd", "utf8"); }`,
    ).catch((e: unknown) => e);
    expect(imp).toBeInstanceOf(NbError);
    const dyn = await runScript(`export default async function run() { return await import("fs"); }`);
    expect(dyn.run.status).toBe("failed");
  });

  it("keeps script data away from host prototypes and caps the result", async () => {
    const { run } = await runScript(`export default async function run(wf) {
      return JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}');
    }`);
    expect(run.status).toBe("completed");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(run.result)).toBe(Object.prototype);
    const big = await runScript(
      `export default async function run(wf) { return "x".repeat(2 * 1024 * 1024); }`,
    );
    expect(big.run.status).toBe("failed");
    expect(big.run.error?.code).toBe("limit_exceeded");
  });

  it("a script cannot rewrite wf, and what it does to builtins stays inside its own pass", async () => {
    const { run } = await runScript(`export default async function run(wf) {
      const tries = [];
      try { wf.agents.create = () => "hijacked"; } catch (e) { tries.push("create:" + e.name); }
      try { wf.args.x = 1; } catch (e) { tries.push("args:" + e.name); }
      Array.prototype.map = () => "poisoned";
      const r = ${invoke("one")};
      return { tries, r, frozen: Object.isFrozen(wf) && Object.isFrozen(wf.agents) };
    }`);
    expect(run.result).toEqual({ tries: ["create:TypeError", "args:TypeError"], r: "r:one", frozen: true });
    const next = await runScript(
      `export default async function run(wf) { return [1, 2].map((x) => x * 2); }`,
    );
    expect(next.run.result).toEqual([2, 4]);
  });

  it("fails a run that no longer matches its journal", async () => {
    const r = runs();
    const run = await r.start({
      target: { script: `export default async function run(wf) { return ${invoke("a")}; }` },
    });
    store.appendJournal(run.id, [
      { seq: 0, kind: "workspace.read", fp: '{"path":"x"}', ok: true, value: { text: "" } },
    ]);
    const out = await r.drive(run.id);
    expect(out.status).toBe("failed");
    expect(out.error?.code).toBe("conflict");
    expect(out.error?.message).toContain("no longer matches its journal");
  });

  it("cancels a waiting run at once and a running one (its in-flight activities aborted, nothing journaled)", async () => {
    const r = runs();
    const waiting = await r.start({
      target: {
        script: `export default async function run(wf) { return wf.ask({ kind: "text", title: "?" }); }`,
      },
    });
    expect((await r.drive(waiting.id)).status).toBe("waiting");
    expect((await r.cancel(waiting.id)).status).toBe("cancelled");
    expect(store.asks(waiting.id)).toEqual([]);
    expect(() => r.answer(waiting.id, { "ask-0": "x" })).toThrow(/cancelled/);

    host.hang.add("slow");
    const running = await r.start({
      target: {
        script: `export default async function run(wf) { return wf.all([() => wf.agents.invoke("a", { message: "quick" }), () => wf.agents.invoke("b", { message: "slow" })]); }`,
      },
    });
    const driving = r.drive(running.id);
    while (store.journal(running.id).length < 1) await new Promise((res) => setTimeout(res, 10));
    const cancelled = await r.cancel(running.id);
    expect(cancelled.status).toBe("cancelled");
    expect((await driving).status).toBe("cancelled");
    expect(store.journal(running.id).map((e) => e.seq)).toEqual([0]);
  });

  it("cancels a run whose activity ignores its abort signal, within a bounded grace", async () => {
    host.deaf.add("deaf");
    const r = runs();
    const run = await r.start({
      target: { script: `export default async function run(wf) { return ${invoke("deaf")}; }` },
    });
    const driving = r.drive(run.id);
    while (!host.calls.length) await new Promise((res) => setTimeout(res, 10));
    expect((await r.cancel(run.id)).status).toBe("cancelled");
    expect((await driving).status).toBe("cancelled");
    expect(store.journal(run.id)).toEqual([]);
  });

  it("stops at the budget with a clear error and keeps the work so far", async () => {
    const r = runs();
    const run = await r.start({
      target: {
        script: `export default async function run(wf) { const out = []; for (const m of ["a","b","c"]) out.push(${invoke("x")} + m); return out; }`,
      },
      budget: { maxInvocations: 2 },
    });
    const out = await r.drive(run.id);
    expect(out.status).toBe("failed");
    expect(out.error).toMatchObject({ code: "limit_exceeded" });
    expect(out.error?.message).toContain("budget");
    expect(store.journal(run.id)).toHaveLength(2);
    expect(store.run(run.id).usage).toEqual({ invocations: 2, tokens: 20 });
    await expect(
      r.start({
        target: { script: "export default async function run() {}" },
        budget: { maxTokens: 10 ** 12 },
      }),
    ).rejects.toThrow(/\/budget\/maxTokens/);
  });

  it("counts the invocations it started in a run its budget stopped mid fan-out", async () => {
    host.hang.add("slow");
    const r = runs();
    const run = await r.start({
      target: {
        script: `export default async function run(wf) { return Promise.all(["s1", "s2", "s3"].map((s) => wf.agents.invoke(s, { message: "slow" }))); }`,
      },
      budget: { maxInvocations: 2 },
    });
    const out = await r.drive(run.id);
    expect(out.status).toBe("failed");
    expect(out.error).toMatchObject({ code: "limit_exceeded" });
    expect(host.calls.filter((c) => c.kind === "session.invoke")).toHaveLength(2);
    expect(store.run(run.id).usage.invocations).toBe(2);
  });

  it("names the runs that need the user: interrupted ones (to resume) and waiting ones (to answer)", async () => {
    const r = runs();
    const waiting = await r.start({
      target: {
        script: `export default async function run(wf) { return wf.ask({ kind: "text", title: "?" }); }`,
      },
    });
    await r.drive(waiting.id);
    const dead = await r.start({ target: { script: "export default async function run() { return 1; }" } });
    store.update(dead.id, { owner: "999999999:gone" });
    const done = await r.start({ target: { script: "export default async function run() { return 1; }" } });
    await r.drive(done.id);
    const lines = workflowNotices(bed.ws);
    expect(lines).toHaveLength(2);
    expect(lines.find((l) => l.includes(dead.id))).toContain(`nbook workflows resume ${dead.id}`);
    expect(lines.find((l) => l.includes(waiting.id))).toContain(`nbook workflows answer ${waiting.id}`);
  });
});

describe("two run services in one process (a tool call's and the web server's)", () => {
  it("see each other's driven runs: the second cannot drive it again, and its cancel stops the first's drive", async () => {
    host.hang.add("slow");
    const first = runs();
    const run = await first.start({
      target: { script: `export default async function run(wf) { return ${invoke("slow")}; }` },
    });
    const driving = first.drive(run.id);
    while (host.running === 0) await new Promise((r) => setTimeout(r, 5));
    const second = runs();
    await expect(async () => second.drive(run.id)).rejects.toMatchObject({ code: "conflict" });
    // Asked, not marked cancelled behind the back of the service that drives it.
    const asked = await second.cancel(run.id);
    expect(asked).toMatchObject({ status: "running", cancelRequested: true });
    expect((await driving).status).toBe("cancelled");
  });
});
