import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { renderTranscript } from "../../src/harness/store/index.js";
import type { RunResult } from "../../src/harness/types.js";
import { type HarnessFixture, harnessFixture } from "../harness-fixture.js";

let fx: HarnessFixture;
afterEach(() => {
  fx?.harness.jobs.shutdown();
  fx?.close();
});

const userTexts = (f: HarnessFixture, id: string) =>
  f.store.activePath(id).flatMap((e) => (e.kind === "user" ? [e.data.text] : []));

/** The tool result text of the latest call of `key` on the session's path. */
function lastResult(f: HarnessFixture, id: string, key: string): string {
  const r = f.store
    .activePath(id)
    .filter((e) => e.kind === "tool_result" && e.data.key === key)
    .pop();
  return r?.kind === "tool_result" ? r.data.text : "";
}

/** Wait for the flow-back run the job's end started in this harness. */
async function flowBack(f: HarnessFixture, id: string): Promise<RunResult> {
  await f.harness.jobs.whenIdle(id);
  const run = f.harness.flowBackRun(id);
  if (!run) throw new Error("no flow-back run started");
  return run;
}

/**
 * Wait for the owner's jobs and any flow-back run still going: after an approval, the job may end
 * and its flow-back run finish while the approved run itself is still finishing.
 */
async function jobsSettled(f: HarnessFixture, id: string): Promise<void> {
  await f.harness.jobs.whenIdle(id);
  await f.harness.flowBackRun(id);
}

/** Processes whose command line contains `marker` (a sandboxed command left running would show here). */
function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(marker)) pids.push(Number(name));
    } catch {}
  }
  return pids;
}

describe("bash {background: true}", () => {
  it("returns a job id at once; the output flows back once as a system reminder and starts the owner's turn", async () => {
    fx = harnessFixture([
      { toolCalls: [{ name: "bash", input: { command: "sleep 0.3; echo bells-rang", background: true } }] },
      { text: "Started it; I will wait for the result." },
      { expect: { lastUser: "bells-rang" }, text: "The job says the bells rang." },
    ]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    const first = await fx.harness.invoke(s.id, { mode: "prompt", message: "run it in the background" });
    expect(first.finalMessage).toBe("Started it; I will wait for the result.");
    const started = lastResult(fx, s.id, "bash");
    const jobId = /job_[0-9a-f]{8}/.exec(started)?.[0];
    expect(started).toMatch(/Started background job job_[0-9a-f]{8}.*do not poll/);

    const back = await flowBack(fx, s.id);
    expect(back).toMatchObject({ status: "completed", finalMessage: "The job says the bells rang." });
    const reminders = userTexts(fx, s.id).filter((t) => t.includes("<system-reminder>"));
    expect(reminders).toHaveLength(1);
    expect(reminders[0]).toMatch(
      new RegExp(
        `^<system-reminder>\\nBackground job ${jobId} \\(bash: sleep 0.3; echo bells-rang\\) completed`,
      ),
    );
    // nbook's own follow-up, not the user's words: a system intent, shown as such in the transcript.
    const entry = fx.store
      .activePath(s.id)
      .find((e) => e.kind === "user" && e.data.text.includes("<system-reminder>"));
    expect(entry?.kind === "user" && entry.data.intent).toBe("system");
    expect(renderTranscript(fx.store.session(s.id), fx.store.activePath(s.id))).toMatch(
      /\nsystem: <system-reminder>/,
    );
    const job = fx.store.jobs.getFull(jobId!);
    expect(job).toMatchObject({
      status: "completed",
      kind: "bash",
      ownerSessionId: s.id,
      delivery: "delivered",
    });
    expect(job.originCallId).toBe("call_1_1");
    expect(job.result?.text).toContain("bells-rang");
    // Delivering the same id again (a retry, another process) changes nothing.
    expect(fx.store.jobs.deliver(s.id, job.deliveryId, "again")).toBe(false);
    expect(fx.store.queued(s.id)).toEqual([]);
  });

  it("keeps a 12,000-character result whole in get_job while the reminder summarises it", async () => {
    const big = "head -c 12000 /dev/zero | tr '\\0' x; echo; echo END-OF-OUTPUT";
    fx = harnessFixture([
      { toolCalls: [{ name: "bash", input: { command: big, background: true } }] },
      { text: "Waiting." },
      { expect: { lastUser: "get_job" }, text: "Let me read all of it." },
    ]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    await fx.harness.invoke(s.id, { mode: "prompt", message: "go" });
    await jobsSettled(fx, s.id);
    const jobId = fx.store.jobs.list({ ownerSessionId: s.id })[0].id;
    const reminder = userTexts(fx, s.id).find((t) => t.includes("<system-reminder>"))!;
    expect(reminder.length).toBeLessThan(5000);
    expect(reminder).toContain(`[The whole result: get_job {"jobId":"${jobId}"}]`);
    expect(reminder).toContain("END-OF-OUTPUT");

    fx.script([{ toolCalls: [{ name: "get_job", input: { jobId } }] }, { text: "Read it." }]);
    await fx.harness.invoke(s.id, { mode: "prompt", message: "read it" });
    const text = lastResult(fx, s.id, "get_job");
    expect(text).toContain("x".repeat(12000));
    expect(text).toContain("END-OF-OUTPUT");
  });

  it("is stopped for approval in discuss mode like any bash call, and starts the job once approved", async () => {
    fx = harnessFixture([
      { toolCalls: [{ name: "bash", input: { command: "echo approved-run", background: true } }] },
      { text: "Started." },
      { text: "Done." },
    ]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel", mode: "discuss" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "go" });
    expect(r.status).toBe("waiting");
    expect(r.pending?.preview).toMatch(/bash in the background/);
    expect(fx.store.jobs.list()).toEqual([]);
    await fx.harness.settle(s.id, r.pending!.approvalId, { approved: true });
    await jobsSettled(fx, s.id);
    const jobs = fx.store.jobs.list();
    expect(jobs).toHaveLength(1);
    expect(fx.store.jobs.getFull(jobs[0].id).result?.text).toContain("approved-run");
  });

  it("needs the user's approval in normal mode too where bash cannot be confined", async () => {
    process.env.NBOOK_BASH_SANDBOX = "off";
    try {
      fx = harnessFixture([
        { toolCalls: [{ name: "bash", input: { command: "echo unconfined-ok", background: true } }] },
        { text: "Started." },
        { text: "Done." },
      ]);
      const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
      const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "go" });
      expect(r.status).toBe("waiting");
      expect(r.pending?.preview).toMatch(/NOT confined/);
      expect(fx.store.jobs.list()).toEqual([]);
      await fx.harness.settle(s.id, r.pending!.approvalId, { approved: true });
      await jobsSettled(fx, s.id);
      expect(fx.store.jobs.getFull(fx.store.jobs.list()[0].id).result?.text).toContain("unconfined-ok");
    } finally {
      delete process.env.NBOOK_BASH_SANDBOX;
    }
  });

  it("cancel_job kills the command with its whole sandbox, and the owner is told once", async () => {
    const marker = `nbook-cancel-probe-${process.pid}`;
    fx = harnessFixture([
      {
        toolCalls: [
          {
            name: "bash",
            input: { command: `bash -c 'exec -a ${marker} sleep 30' & sleep 30; wait`, background: true },
          },
        ],
      },
      { text: "Started." },
    ]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    await fx.harness.invoke(s.id, { mode: "prompt", message: "go" });
    const jobId = fx.store.jobs.list()[0].id;
    for (let i = 0; i < 100 && processesWith(marker).length === 0; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(processesWith(marker).length).toBeGreaterThan(0);

    fx.script([
      { toolCalls: [{ name: "cancel_job", input: { jobId } }] },
      { text: "Cancelled it." },
      { expect: { lastUser: "was cancelled" }, text: "Noted." },
    ]);
    await fx.harness.invoke(s.id, { mode: "prompt", message: "stop it" });
    expect(lastResult(fx, s.id, "cancel_job")).toBe(`Job ${jobId} ended as cancelled.`);
    // The kill is under way when the job is ended; on a busy machine the sandbox may take a moment.
    for (let i = 0; i < 100 && processesWith(marker).length; i++) await new Promise((r) => setTimeout(r, 50));
    expect(processesWith(marker)).toEqual([]);
    expect(fx.store.jobs.get(jobId).status).toBe("cancelled");
    const reminders = userTexts(fx, s.id).filter((t) => t.includes("<system-reminder>"));
    expect(reminders).toHaveLength(1);
    expect(reminders[0]).toContain("was cancelled");
  });
});

describe("a read-only bash binding in the background", () => {
  it("stays read-only: the job's command cannot write into the project", async () => {
    fx = harnessFixture(
      [
        {
          toolCalls: [
            {
              name: "bash",
              input: {
                command: "touch made-by-job 2>&1; echo exit=$?; cat AGENTS.md >/dev/null && echo can-read",
                background: true,
              },
            },
          ],
        },
        { text: "Started." },
        { expect: { lastUser: "can-read" }, text: "It could read but not write." },
      ],
      {
        profiles: {
          "reader.yaml":
            "key: reader\nname: Reader\ntools: [{ key: bash, access: readonly }]\nprompt: Read.\n",
        },
      },
    );
    const s = fx.harness.createSession({ profileKey: "reader", project: "novel" });
    await fx.harness.invoke(s.id, { mode: "prompt", message: "try" });
    expect((await flowBack(fx, s.id)).finalMessage).toBe("It could read but not write.");
    const job = fx.store.jobs.getFull(fx.store.jobs.list()[0].id);
    expect(job.result?.text).toMatch(/Read-only file system/);
    expect(job.result?.text).toContain("exit=1");
    expect(existsSync(join(fx.project.root, "made-by-job"))).toBe(false);
  });
});

describe("the job tools", () => {
  it("refuse another session's job, and list only the caller's", async () => {
    fx = harnessFixture([
      { toolCalls: [{ name: "bash", input: { command: "sleep 5", background: true } }] },
      { text: "Started." },
    ]);
    const owner = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    await fx.harness.invoke(owner.id, { mode: "prompt", message: "go" });
    const jobId = fx.store.jobs.list()[0].id;
    const other = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    fx.script([
      {
        toolCalls: [
          { name: "cancel_job", input: { jobId } },
          { name: "get_job", input: { jobId } },
          { name: "list_jobs", input: {} },
        ],
      },
      { text: "Could not." },
    ]);
    await fx.harness.invoke(other.id, { mode: "prompt", message: "cancel theirs" });
    const results = fx.store
      .activePath(other.id)
      .flatMap((e) =>
        e.kind === "tool_result" ? [`${e.data.key}:${e.data.error?.code ?? "ok"}:${e.data.text}`] : [],
      );
    expect(results[0]).toMatch(
      /^cancel_job:not_allowed:Job job_[0-9a-f]{8} is not one of this session.s jobs/,
    );
    expect(results[1]).toMatch(/^get_job:not_allowed:/);
    expect(results[2]).toBe("list_jobs:ok:No background jobs.");
    expect(fx.store.jobs.get(jobId).status).toBe("running");
  });
});
