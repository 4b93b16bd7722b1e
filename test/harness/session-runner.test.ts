import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type EntryOf, SessionStore } from "../../src/harness/store/index.js";
import { openHarness } from "../../src/runtime/open.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { NBOOK_BIN, runNbookInProcess } from "../helpers.js";

// Each test starts nbook processes, which a busy two-core machine may take seconds to boot.
vi.setConfig({ testTimeout: 60_000 });

let dir: string;
let ws: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "nbook-session-runner-"));
  ws = join(dir, "ws");
  Workspace.init(ws).createProject("novel", { sample: false });
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

function script(name: string, body: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(body));
  return file;
}

interface Started {
  child: ChildProcess;
  out: () => string;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** Start `nbook …` as its own process in the workspace. */
function start(args: string[]): Started {
  const child = spawn(NBOOK_BIN, args, { cwd: ws, stdio: ["ignore", "pipe", "pipe"] });
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
  return { child, out: () => stdout, done };
}

async function until<T>(probe: () => T | undefined | null | false, ms = 20_000): Promise<T> {
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

/** True when some process's command line contains `marker` (a sandboxed command running). */
function commandLineWith(marker: string): boolean {
  return readdirSync("/proc").some((n) => {
    try {
      return /^\d+$/.test(n) && readFileSync(`/proc/${n}/cmdline`, "utf8").includes(marker);
    } catch {
      return false;
    }
  });
}

const nbook = (args: string[]) => runNbookInProcess([...args, "--workspace", ws], { cwd: dir });

/** A script whose model call streams a few words, then waits until the call is aborted. */
const WAITING = { turns: [{ text: "Thinking about the bell", waitForAbort: true }] };

describe("nbook run on a model call that nothing answers", () => {
  it("waits for Ctrl-C, as for a provider that hangs, and ends aborted (not a silent exit 13)", async () => {
    const run = start(["run", "ring it", "--project", "novel", "--script", script("wait.json", WAITING)]);
    await until(() => run.out().includes("Thinking about the bell"));
    // Still running a moment later: the wait holds the process, as an open connection would.
    await new Promise((r) => setTimeout(r, 300));
    expect(run.child.exitCode).toBeNull();
    run.child.kill("SIGINT");
    const r = await run.done;
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      "Session 1: the run ended with status aborted. It can go on: nbook run --session 1",
    );
    expect(withStore((s) => s.session("1").status)).toBe("idle");
  });
});

describe("a session whose process died mid-run", () => {
  it("is shown interrupted, not running, and goes on with run --session", async () => {
    const run = start(["run", "ring it", "--project", "novel", "--script", script("wait.json", WAITING)]);
    await until(() => run.out().includes("Thinking about the bell"));
    run.child.kill("SIGKILL");
    await run.done;
    expect(withStore((s) => s.session("1").status)).toBe("running");

    const shown = await nbook(["sessions", "show", "1"]);
    expect(shown.stdout).toMatch(/· idle\n/);
    expect(shown.stdout).toMatch(
      /run \S+ error \[aborted\]: Interrupted: the nbook process running it \(pid \d+\) ended/,
    );
    expect(shown.stdout).toMatch(/— run \S+ aborted/);

    const next = script("next.json", { turns: [{ text: "Back at the bell." }] });
    const r = await nbook(["run", "--session", "1", "--script", next, "--json"]);
    expect(JSON.parse(r.stdout.trim())).toMatchObject({
      status: "completed",
      finalMessage: "Back at the bell.",
    });
    expect(withStore((s) => s.session("1").status)).toBe("idle");
  });

  it("is closed by the next harness opened on the workspace", async () => {
    const run = start(["run", "ring it", "--project", "novel", "--script", script("wait.json", WAITING)]);
    await until(() => run.out().includes("Thinking about the bell"));
    run.child.kill("SIGKILL");
    await run.done;
    const workspace = Workspace.discover({ workspace: ws });
    const harness = openHarness({ workspace, project: null, script: script("any.json", { turns: [{}] }) });
    try {
      expect(harness.store.session("1").status).toBe("idle");
      const ends = harness.store.activePath("1").filter((e) => e.kind === "run_end");
      expect(ends.map((e) => (e as EntryOf<"run_end">).data.status)).toEqual(["aborted"]);
    } finally {
      harness.close();
      workspace.close();
    }
  });
});

describe("a session a live process is running", () => {
  it("is not run by a second process: continue is refused, a message is queued for the running process", async () => {
    const marker = `nbook-gate-probe-${process.pid}`;
    const gate = {
      turns: [
        {
          toolCalls: [
            { name: "bash", input: { command: `: ${marker}; until [ -e go ]; do sleep 0.05; done` } },
          ],
        },
        { text: "The bell rang." },
        { expect: { lastUser: "and the tide" }, text: "The tide is in too." },
      ],
    };
    const run = start([
      "run",
      "listen",
      "--project",
      "novel",
      "--script",
      script("gate.json", gate),
      "--json",
    ]);
    await until(() => commandLineWith(marker));

    const again = await nbook(["run", "--session", "1", "--script", script("other.json", { turns: [{}] })]);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(
      /error \[conflict\]: Session 1 is running in another nbook process \(pid \d+\)/,
    );
    // Nothing of a second run reached the session's history.
    expect(withStore((s) => s.activePath("1").filter((e) => e.kind === "run_start").length)).toBe(1);

    const queued = await nbook([
      "run",
      "and the tide",
      "--session",
      "1",
      "--script",
      script("q.json", { turns: [{}] }),
    ]);
    expect(queued.status).toBe(0);
    expect(queued.stdout).toContain(
      "Session 1 is running in another nbook process; your message waits in its queue",
    );

    writeFileSync(join(ws, "novel", "go"), "");
    const r = await run.done;
    expect(JSON.parse(r.stdout.trim())).toMatchObject({
      status: "completed",
      finalMessage: "The tide is in too.",
    });
  });

  it("is running to an agent's invoke_agent: continue is refused, a message is queued", async () => {
    const workspace = Workspace.discover({ workspace: ws });
    const leaderScript = script("leader.json", {
      profiles: {
        "leader.default": [
          { toolCalls: [{ name: "create_agent", input: { profileKey: "writer" } }] },
          { text: "Created." },
          { toolCalls: [{ name: "invoke_agent", input: { sessionId: 2, mode: "continue" } }] },
          { toolCalls: [{ name: "invoke_agent", input: { sessionId: 2, message: "mind the tide" } }] },
          { text: "Done." },
        ],
      },
    });
    const harness = openHarness({ workspace, project: workspace.project("novel"), script: leaderScript });
    try {
      const leader = harness.createSession({ profileKey: "leader.default", project: "novel" });
      await harness.invoke(leader.id, { mode: "prompt", message: "make a writer" });
      const child = start(["run", "draft", "--session", "2", "--script", script("child.json", WAITING)]);
      await until(() => child.out().includes("Thinking about the bell"));

      await harness.invoke(leader.id, { mode: "prompt", message: "use it" });
      const results = harness.store
        .activePath(leader.id)
        .filter(
          (e): e is EntryOf<"tool_result"> => e.kind === "tool_result" && e.data.key === "invoke_agent",
        );
      expect(results[0].data).toMatchObject({
        ok: false,
        error: { code: "conflict", details: { reason: "active_invocation_exists" } },
      });
      expect(results[1].data.ok).toBe(true);
      expect(results[1].data.text).toContain("queued");
      expect(harness.store.queued("2").map((q) => q.text)).toEqual(["mind the tide"]);

      child.child.kill("SIGINT");
      expect((await child.done).stdout).toContain("Session 2: the run ended with status aborted");
    } finally {
      harness.close();
      workspace.close();
    }
  });
});
