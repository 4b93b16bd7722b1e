import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { isNbError } from "../../src/core/errors.js";
import { SessionStore } from "../../src/harness/store/index.js";
import { JobRunner, type JobSpec } from "../../src/jobs/index.js";
import { getJob } from "../../src/tools/jobs/index.js";

const profile = { key: "leader.default", initial: z.object({}) };

let dir: string;
let store: SessionStore;
let runner: JobRunner;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "nbook-jobs-"));
  store = SessionStore.open(join(dir, "agent.sqlite"));
});
afterEach(() => {
  runner?.shutdown();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A job whose work waits until `open()` is called (or returns `text` at once when opened already). */
function gated(
  owner: string | null,
  text = "done",
): { spec: JobSpec; open: () => void; started: Promise<void> } {
  let open!: () => void;
  let began!: () => void;
  const gate = new Promise<void>((r) => {
    open = r;
  });
  const started = new Promise<void>((r) => {
    began = r;
  });
  return {
    spec: {
      kind: "bash",
      title: "wait",
      ownerSessionId: owner,
      run: async () => {
        began();
        await gate;
        return { text };
      },
    },
    open,
    started,
  };
}

const errorOf = async (p: Promise<unknown> | (() => unknown)) => {
  try {
    await (typeof p === "function" ? p() : p);
  } catch (e) {
    if (isNbError(e)) return e.code;
    throw e;
  }
  return "no error";
};

describe("the job runner", () => {
  it("runs at most maxConcurrent jobs; the rest wait queued and start as slots free", async () => {
    runner = new JobRunner({ table: store.jobs, maxConcurrent: 2 });
    const s = store.createSession({ profile });
    const jobs = [gated(s.id), gated(s.id), gated(s.id)];
    const started = jobs.map((j) => runner.start(j.spec));
    expect(started.map((j) => j.status)).toEqual(["running", "running", "queued"]);
    await jobs[0].started;
    jobs[0].open();
    await jobs[2].started;
    expect(store.jobs.get(started[2].id).status).toBe("running");
    expect(store.jobs.get(started[0].id).status).toBe("completed");
    jobs[1].open();
    jobs[2].open();
    await runner.whenIdle();
    expect(runner.list("user").map((j) => j.status)).toEqual(["completed", "completed", "completed"]);
  });

  it("refuses to start past the queue cap (nothing unbounded)", async () => {
    runner = new JobRunner({ table: store.jobs, maxConcurrent: 1, maxQueued: 2 });
    const gates = [gated(null), gated(null), gated(null), gated(null)];
    for (const g of gates.slice(0, 3)) runner.start(g.spec);
    expect(await errorOf(() => runner.start(gates[3].spec))).toBe("limit_exceeded");
    for (const g of gates) g.open();
    await runner.whenIdle();
  });

  it("lets only the owner session (or the user) see and cancel a job", async () => {
    runner = new JobRunner({ table: store.jobs, cancelGraceMs: 50 });
    const owner = store.createSession({ profile });
    const other = store.createSession({ profile });
    const g = gated(owner.id);
    const job = runner.start(g.spec);
    expect(await errorOf(runner.cancel(job.id, { sessionId: other.id }))).toBe("not_allowed");
    expect(await errorOf(() => runner.get(job.id, { sessionId: other.id }))).toBe("not_allowed");
    expect(runner.list({ sessionId: other.id })).toEqual([]);
    expect(store.jobs.get(job.id).status).toBe("running");
    expect(runner.get(job.id, { sessionId: owner.id }).id).toBe(job.id);
    const ended = await runner.cancel(job.id, { sessionId: owner.id });
    expect(ended.status).toBe("cancelled");
  });

  it("answers a session alike for another session's job and an id that was never issued", async () => {
    runner = new JobRunner({ table: store.jobs, cancelGraceMs: 50 });
    const owner = store.createSession({ profile });
    const other = store.createSession({ profile });
    const g = gated(owner.id);
    const job = runner.start(g.spec);
    const unknown = "job_00000000";
    const answer = async (p: Promise<unknown> | (() => unknown), id: string) => {
      try {
        await (typeof p === "function" ? p() : p);
      } catch (e) {
        if (isNbError(e)) return `${e.code}: ${e.message.replaceAll(id, "<id>")}`;
        throw e;
      }
      return "no error";
    };
    const viewer = { sessionId: other.id };
    const theirs = await answer(() => runner.get(job.id, viewer), job.id);
    expect(theirs).toMatch(/^not_allowed: /);
    expect(await answer(() => runner.get(unknown, viewer), unknown)).toBe(theirs);
    expect(await answer(runner.cancel(job.id, viewer), job.id)).toBe(theirs);
    expect(await answer(runner.cancel(unknown, viewer), unknown)).toBe(theirs);
    // The user sees every job, so an unknown id is simply not found.
    expect(await errorOf(() => runner.get(unknown, "user"))).toBe("not_found");
    g.open();
    await runner.whenIdle();
  });

  it("ends a cancelled job within the grace even when its work ignores the signal, and never records its late result", async () => {
    runner = new JobRunner({ table: store.jobs, cancelGraceMs: 100 });
    const s = store.createSession({ profile });
    const g = gated(s.id, "late result");
    const job = runner.start(g.spec);
    await g.started;
    const t0 = Date.now();
    const ended = await runner.cancel(job.id, "user");
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(ended.status).toBe("cancelled");
    expect(ended.error?.message).toMatch(/did not stop within 100 ms/);
    g.open();
    await new Promise((r) => setTimeout(r, 50));
    const after = store.jobs.getFull(job.id);
    expect(after.status).toBe("cancelled");
    expect(after.result).toBeNull();
    // The owner is told once, about the cancel.
    const queued = store.queued(s.id);
    expect(queued).toHaveLength(1);
    expect(queued[0].text).toMatch(
      /^<system-reminder>\nBackground job job_[0-9a-f]{8} \(wait\) was cancelled/,
    );
  });

  it("commits the terminal state and the flow-back together before announcing the end", async () => {
    runner = new JobRunner({ table: store.jobs });
    const s = store.createSession({ profile });
    const seen: string[] = [];
    runner.on((e) => {
      if (e.type !== "job_ended") return;
      // What listeners are told is already in the store, with the owner's follow-up queued.
      const stored = store.jobs.getFull(e.job.id);
      seen.push(`${stored.status}:${stored.result?.text}:${stored.delivery}:${store.queued(s.id).length}`);
    });
    const job = runner.start({
      kind: "bash",
      title: "echo",
      ownerSessionId: s.id,
      run: async () => ({ text: "hello" }),
    });
    await runner.whenIdle();
    expect(seen).toEqual(["completed:hello:queued:1"]);
    expect(store.jobs.undelivered(s.id)).toEqual([job.deliveryId]);
  });

  it("fails a job whose work throws, and ends active jobs as interrupted on shutdown", async () => {
    runner = new JobRunner({ table: store.jobs });
    const s = store.createSession({ profile });
    const failing = runner.start({
      kind: "bash",
      title: "boom",
      ownerSessionId: s.id,
      run: async () => {
        throw new Error("it broke");
      },
    });
    await runner.whenIdle();
    expect(store.jobs.get(failing.id)).toMatchObject({ status: "failed", error: { message: "it broke" } });
    const g = gated(s.id);
    const held = runner.start(g.spec);
    runner.shutdown();
    expect(store.jobs.get(held.id)).toMatchObject({ status: "interrupted" });
    expect(await errorOf(() => runner.start(gated(s.id).spec))).toBe("conflict");
    const texts = store.queued(s.id).map((q) => q.text);
    expect(texts).toHaveLength(2);
    expect(texts[1]).toMatch(/was interrupted: The nbook process running it exited/);
  });
});

describe("a failed job's error", () => {
  it("does not show the host paths the runner is told to hide", async () => {
    runner = new JobRunner({ table: store.jobs, hidePaths: [dir] });
    const job = runner.start({
      kind: "bash",
      title: "leaky",
      ownerSessionId: null,
      run: async () => {
        throw new Error(`cannot open ${join(dir, "secret", "file.txt")}`);
      },
    });
    await runner.whenIdle();
    const message = store.jobs.get(job.id).error?.message ?? "";
    expect(message).not.toContain(dir);
    expect(message).toContain("file.txt");
  });
});

describe("progress", () => {
  it("is stored at most every 250 ms, the latest line kept, clipped to its last 400 characters", async () => {
    runner = new JobRunner({ table: store.jobs });
    const g = gated(null);
    let report!: (text: string) => void;
    const job = runner.start({
      ...g.spec,
      run: (ctx) => {
        report = ctx.progress;
        return g.spec.run(ctx);
      },
    });
    await g.started;
    for (let i = 0; i < 100; i++) report(`line ${i}`);
    expect(store.jobs.get(job.id).preview).toBe("");
    await new Promise((r) => setTimeout(r, 300));
    expect(store.jobs.get(job.id).preview).toBe("line 99");
    report(`${"a".repeat(500)}END`);
    await new Promise((r) => setTimeout(r, 300));
    const preview = store.jobs.get(job.id).preview;
    expect(preview).toHaveLength(400);
    expect(preview.startsWith("…") && preview.endsWith("aEND")).toBe(true);
    g.open();
    await runner.whenIdle();
  });
});

describe("a job ended by another process", () => {
  it("is let go here: its work is aborted, its end announced once, and its late result not recorded", async () => {
    runner = new JobRunner({ table: store.jobs, pollMs: 20 });
    const s = store.createSession({ profile });
    const g = gated(s.id, "late");
    let aborted = false;
    const job = runner.start({
      ...g.spec,
      run: async (ctx) => {
        ctx.signal.addEventListener("abort", () => {
          aborted = true;
        });
        return g.spec.run(ctx);
      },
    });
    await g.started;
    const ended: string[] = [];
    runner.on((e) => {
      if (e.type === "job_ended") ended.push(`${e.job.id}:${e.job.status}`);
    });
    // What `nbook jobs cancel` does when the running process does not confirm in time.
    const other = SessionStore.open(join(dir, "agent.sqlite"));
    try {
      other.jobs.end(job.id, { status: "cancelled" }, () => "<system-reminder>cancelled</system-reminder>");
    } finally {
      other.close();
    }
    await runner.whenIdle();
    expect(aborted).toBe(true);
    expect(ended).toEqual([`${job.id}:cancelled`]);
    g.open();
    await new Promise((r) => setTimeout(r, 30));
    expect(store.jobs.getFull(job.id)).toMatchObject({ status: "cancelled", result: null });
    expect(store.queued(s.id)).toHaveLength(1);
  });
});

describe("deliveries", () => {
  it("queue a follow-up once per delivery id, also from a second connection to the same file", () => {
    const s = store.createSession({ profile });
    const second = SessionStore.open(join(dir, "agent.sqlite"));
    try {
      expect(store.jobs.deliver(s.id, "d-1", "<system-reminder>x</system-reminder>")).toBe(true);
      expect(second.jobs.deliver(s.id, "d-1", "<system-reminder>x</system-reminder>")).toBe(false);
      expect(store.jobs.deliver(s.id, "d-1", "<system-reminder>x</system-reminder>")).toBe(false);
      expect(store.queued(s.id)).toHaveLength(1);
      expect(second.jobs.undelivered(s.id)).toEqual(["d-1"]);
    } finally {
      second.close();
    }
  });
});

describe("get_job", () => {
  it("pages a result longer than 40,000 characters, and every page is exact", async () => {
    runner = new JobRunner({ table: store.jobs });
    const s = store.createSession({ profile });
    const text = Array.from({ length: 9000 }, (_, i) => `${i}`.padStart(9, "0")).join("\n");
    const job = runner.start({
      kind: "invoke_agent",
      title: "long",
      ownerSessionId: s.id,
      run: async () => ({ text }),
    });
    await runner.whenIdle();
    const ctx = {
      session: { id: s.id, profileKey: "leader.default", initial: {}, services: { jobs: runner } },
    };
    const read = async (offset?: number) =>
      (
        await (
          await getJob.prepare({ jobId: job.id, ...(offset === undefined ? {} : { offset }) }, ctx as never)
        ).run({ writes: "none" })
      ).text;
    const first = await read();
    expect(first).toContain(`(characters 0–40000 of ${text.length})`);
    expect(first).toContain(`[More: get_job {"jobId":"${job.id}","offset":40000}]`);
    const second = await read(40000);
    expect(second).toContain(`(characters 40000–80000 of ${text.length})`);
    const third = await read(80000);
    expect(third).toContain(`(characters 80000–${text.length} of ${text.length})`);
    expect(third).not.toContain("[More:");
    const body = (page: string) => page.slice(page.indexOf("):\n") + 3).split("\n[More:")[0];
    expect(body(first) + body(second) + body(third)).toBe(text);
  });
});
