import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SessionStore } from "../../src/harness/store/index.js";
import { JobRunner, recoverInterruptedJobs } from "../../src/jobs/index.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { NBOOK_BIN, runNbook } from "../helpers.js";

// Each test starts nbook processes, which a busy two-core machine may take seconds to boot.
vi.setConfig({ testTimeout: 60_000 });

let dir: string;
let ws: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "nbook-jobs-proc-"));
  ws = join(dir, "ws");
  Workspace.init(ws).createProject("novel", {}).root;
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

function script(name: string, turns: unknown[]): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ turns }));
  return file;
}

/** Start `nbook …` as its own process; resolves with what it printed once it exits. */
function start(args: string[]): {
  child: ChildProcess;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
} {
  const child = spawn(NBOOK_BIN, args, {
    cwd: ws,
    env: { ...process.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (b) => {
    stdout += b;
  });
  child.stderr!.on("data", (b) => {
    stderr += b;
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
  return { child, done };
}

async function until<T>(probe: () => T | undefined | null | false, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

function withStore<T>(fn: (store: SessionStore) => T): T {
  const store = SessionStore.open(join(ws, ".nbook", "agent.sqlite"));
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

const reminders = (store: SessionStore, sessionId: string) =>
  store
    .allEntries(sessionId)
    .flatMap((e) => (e.kind === "user" && e.data.text.startsWith("<system-reminder>") ? [e.data.text] : []));

/** True when a process whose program name (argv[0]) is `name` runs: the sandboxed command itself. */
function commandRunning(name: string): boolean {
  return readdirSync("/proc").some((n) => {
    try {
      return /^\d+$/.test(n) && readFileSync(`/proc/${n}/cmdline`, "utf8").split("\0")[0] === name;
    } catch {
      return false;
    }
  });
}

function processesWith(marker: string): number[] {
  return readdirSync("/proc")
    .filter((n) => {
      if (!/^\d+$/.test(n)) return false;
      try {
        return readFileSync(`/proc/${n}/cmdline`, "utf8").includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe("nbook run with a background job", () => {
  it("waits for the job, says so, and prints the flow-back turn's answer", async () => {
    const s = script("wait.json", [
      { toolCalls: [{ name: "bash", input: { command: "sleep 1; echo tide-is-high", background: true } }] },
      { text: "Started the check in the background." },
      { expect: { lastUser: "tide-is-high" }, text: "The check says the tide is high." },
    ]);
    const r = await start(["run", "check the tide", "--project", "novel", "--script", s, "--json"]).done;
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/Waiting for 1 background job of session 1 to end/);
    const out = JSON.parse(r.stdout.trim());
    expect(out).toMatchObject({
      sessionId: "1",
      status: "completed",
      finalMessage: "The check says the tide is high.",
      jobs: [{ kind: "bash", status: "completed" }],
    });
    withStore((store) => {
      expect(reminders(store, "1")).toHaveLength(1);
      expect(store.jobs.undelivered("1")).toEqual([]);
    });
  });
});

describe("a process that dies with a job running", () => {
  it("leaves the job interrupted on the next open, its sandbox gone, and the owner told once", async () => {
    const marker = `nbook-orphan-probe-${process.pid}`;
    const s = script("die.json", [
      {
        toolCalls: [{ name: "bash", input: { command: `exec -a ${marker} sleep 60`, background: true } }],
      },
      { text: "Started." },
    ]);
    const { child, done } = start(["run", "start it", "--project", "novel", "--script", s]);
    // Killed once the command itself runs: a process killed outright (no chance to clean up) while
    // bubblewrap is still setting the sandbox up may leave it behind (docs/jobs.md). And once its
    // turn has made both model calls, which the next run's script counts on.
    await until(() => commandRunning(marker));
    await until(() => withStore((store) => store.modelCalls("1")) >= 2);
    const jobId = withStore((store) => store.jobs.list()[0].id);
    expect(withStore((store) => store.jobs.get(jobId).status)).toBe("running");
    child.kill("SIGKILL");
    await done;
    // The sandbox dies with the process that ran it (bwrap --die-with-parent).
    await until(() => processesWith(marker).length === 0);

    withStore((store) => {
      // Opening a runner (any nbook process with a harness) recovers the dead process's jobs.
      const runner = new JobRunner({ table: store.jobs });
      runner.shutdown();
      const job = store.jobs.get(jobId);
      expect(job.status).toBe("interrupted");
      expect(job.error?.message).toMatch(/process that ran it ended/);
      expect(store.queued("1")).toHaveLength(1);
    });
    // A second open (and the CLI) tell nobody again.
    withStore((store) => {
      expect(recoverInterruptedJobs(store.jobs)).toEqual([]);
    });
    const listed = runNbook(["jobs", "list", "--session", "1"], { cwd: ws });
    expect(listed.stdout).toMatch(new RegExp(`${jobId} \\[interrupted\\] bash`));

    // The next run of the session takes the reminder once.
    // A script continued with --session resumes after the model calls the session already made (two).
    const next = script("next.json", [
      { text: "(already made)" },
      { text: "(already made)" },
      { text: "Hello again." },
      {
        expect: { lastUser: "was interrupted" },
        text: "The background job was interrupted; I will start it again if needed.",
      },
    ]);
    const r = runNbook(["run", "hello", "--session", "1", "--script", next, "--json"], { cwd: ws });
    expect(JSON.parse(r.stdout.trim()).finalMessage).toMatch(/was interrupted/);
    withStore((store) => {
      const told = reminders(store, "1");
      expect(told).toHaveLength(1);
      expect(told[0]).toContain(`Background job ${jobId}`);
    });
  });
});

describe("two processes on one workspace", () => {
  it("deliver a job's flow-back exactly once", async () => {
    const s = script("two.json", [
      {
        toolCalls: [
          {
            name: "bash",
            input: { command: "until [ -e go ]; do sleep 0.05; done; echo second-bell", background: true },
          },
        ],
      },
      { text: "Started." },
      { expect: { lastUser: "second-bell" }, text: "The second bell rang." },
    ]);
    const a = start(["run", "listen", "--project", "novel", "--script", s, "--json"]);
    const jobId = await until(() => withStore((store) => store.jobs.list()[0]?.id));
    // Meanwhile another process opens the workspace: its runner must not take the live job for dead,
    // and re-delivering under the same id (a retry, a second deliverer) queues nothing.
    const other = SessionStore.open(join(ws, ".nbook", "agent.sqlite"));
    try {
      const runner = new JobRunner({ table: other.jobs });
      expect(other.jobs.get(jobId).status).toBe("running");
      const listing = start(["jobs", "list"]);
      expect((await listing.done).stdout).toContain(`${jobId} [running]`);
      // The job waits for this file (written into the project, which its sandbox sees), so it is
      // certainly running while the other process looks.
      writeFileSync(join(ws, "novel", "go"), "");
      const r = await a.done;
      expect(JSON.parse(r.stdout.trim()).finalMessage).toBe("The second bell rang.");
      const job = other.jobs.get(jobId);
      expect(job).toMatchObject({ status: "completed", delivery: "delivered" });
      expect(other.jobs.deliver("1", job.deliveryId, "duplicate")).toBe(false);
      expect(recoverInterruptedJobs(other.jobs)).toEqual([]);
      runner.shutdown();
      expect(reminders(other, "1")).toHaveLength(1);
      expect(other.queued("1")).toEqual([]);
    } finally {
      other.close();
    }
  });
});

describe("nbook jobs", () => {
  it("cancel stops a job another process runs (its sandbox killed), and show prints a job whole", async () => {
    const marker = `nbook-cli-cancel-probe-${process.pid}`;
    const s = script("cancel.json", [
      { toolCalls: [{ name: "bash", input: { command: `exec -a ${marker} sleep 60`, background: true } }] },
      { text: "Started." },
      { expect: { lastUser: "was cancelled" }, text: "The user cancelled the job." },
    ]);
    const a = start(["run", "start it", "--project", "novel", "--script", s, "--json"]);
    await until(() => processesWith(marker).length > 0);
    const jobId = withStore((store) => store.jobs.list()[0].id);

    const shown = runNbook(["jobs", "show", jobId], { cwd: ws });
    expect(shown.stdout).toMatch(new RegExp(`^Job ${jobId}: bash: exec -a`));
    expect(shown.stdout).toContain("Status: running");
    const refused = runNbook(["jobs", "show", "job_00000000"], { cwd: ws });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('No job "job_00000000"');

    const cancelled = runNbook(["jobs", "cancel", jobId], { cwd: ws });
    expect(cancelled.stdout).toBe(`Job ${jobId} ended as cancelled.\n`);
    // The process that ran it stopped it: the command is gone and its run took the flow-back.
    const r = await a.done;
    expect(JSON.parse(r.stdout.trim())).toMatchObject({
      finalMessage: "The user cancelled the job.",
      jobs: [{ jobId, status: "cancelled" }],
    });
    await until(() => processesWith(marker).length === 0, 5000);
    const again = runNbook(["jobs", "cancel", jobId], { cwd: ws });
    expect(again.stdout).toBe(`Job ${jobId} had already ended (cancelled); nothing to cancel.\n`);
    const ids = (args: string[]) =>
      JSON.parse(runNbook(["jobs", "list", "--json", ...args], { cwd: ws }).stdout).map(
        (j: { id: string }) => j.id,
      );
    expect(ids(["--status", "cancelled"])).toEqual([jobId]);
    expect(ids(["--project", "novel", "--session", "1"])).toEqual([jobId]);
    expect(ids(["--project", "elsewhere"])).toEqual([]);
    expect(runNbook(["jobs", "list", "--session", "9"], { cwd: ws }).stderr).toContain(
      'No session with id "9"',
    );
  });
});

describe("nbook chat with background jobs", () => {
  it("shows the started job, lists it with /jobs, and on leaving ends it as interrupted and says so", () => {
    const s = script("chat.json", [
      { toolCalls: [{ name: "bash", input: { command: "sleep 30", background: true } }] },
      { text: "Started it." },
    ]);
    const r = runNbook(["chat", "--project", "novel", "--script", s], {
      cwd: ws,
      input: "count the bells\n/jobs\n",
    });
    expect(r.stdout).toMatch(/✓ bash "sleep 30" {2}→ Started background job job_[0-9a-f]{8}/);
    expect(r.stdout).toMatch(/\/jobs\njob_[0-9a-f]{8} \[running\] bash: sleep 30 \(started/);
    expect(r.stdout).toContain("(1 background job still running end as interrupted now");
    withStore((store) => {
      const [job] = store.jobs.list();
      expect(job).toMatchObject({ status: "interrupted", delivery: "queued" });
      expect(store.queued("1")[0].text).toContain("was interrupted");
    });
    // Back in the session later, the chat gives it its turn for the result before asking the user.
    const again = script("again.json", [
      { text: "(already made)" },
      { text: "(already made)" },
      { expect: { lastUser: "was interrupted" }, text: "The count was interrupted; shall I start it again?" },
    ]);
    const back = runNbook(["chat", "--session", "1", "--script", again], { cwd: ws, input: "" });
    expect(back.stdout).toContain("The count was interrupted; shall I start it again?");
    withStore((store) => expect(store.jobs.undelivered("1")).toEqual([]));
  });
});

describe("Ctrl-C while nbook run waits for its jobs", () => {
  it("stops them (their sandbox killed), records them interrupted for the session's next run, and exits 130", async () => {
    const marker = `nbook-sigint-probe-${process.pid}`;
    const s = script("sigint.json", [
      { toolCalls: [{ name: "bash", input: { command: `exec -a ${marker} sleep 60`, background: true } }] },
      { text: "Started." },
    ]);
    const { child, done } = start(["run", "start it", "--project", "novel", "--script", s]);
    let stderr = "";
    child.stderr!.on("data", (b) => {
      stderr += b;
    });
    await until(() => stderr.includes("Waiting for 1 background job") && processesWith(marker).length > 0);
    child.kill("SIGINT");
    expect((await done).code).toBe(130);
    await until(() => processesWith(marker).length === 0, 5000);
    withStore((store) => {
      const [job] = store.jobs.list();
      expect(job).toMatchObject({ status: "interrupted", delivery: "queued" });
      expect(job.error?.message).toMatch(/exited before the job finished/);
    });
  });
});
