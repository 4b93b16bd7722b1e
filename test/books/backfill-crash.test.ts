import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSampleProject } from "../../src/sample/seed.js";
import { WorkflowStore } from "../../src/workflows/store/index.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { NBOOK_BIN, runNbook } from "../helpers.js";

const PER_CHAPTER = 15;

/** Chapter `c`'s reader proposes PER_CHAPTER characters; the first chapter also a thread. */
function readerTurn(c: number) {
  const lorebook = Array.from({ length: PER_CHAPTER }, (_, i) => ({
    category: "characters",
    name: `person-${c}-${i + 1}`,
    title: `Person ${c}.${i + 1}`,
    text: `Appears in chapter ${c}.`,
  }));
  const plot =
    c === 1 ? [{ kind: "thread", name: "the-cut-page", title: "The cut page", summary: "Who cut it?" }] : [];
  return {
    toolCalls: [
      { name: "report_result", input: { result: "proposed", data: { lorebook, plot, world: [] } } },
    ],
  };
}

let dir = "";
let child: ChildProcess | null = null;
afterEach(() => {
  child?.kill("SIGKILL");
  child = null;
  rmSync(dir, { recursive: true, force: true });
});

async function until(check: () => boolean, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("book-backfill killed while writing an approved batch", () => {
  it("resumes in a new process and ends with each proposal written once, every write in nbook history under the run", async () => {
    dir = mkdtempSync(join(tmpdir(), "nbook-backfill-kill-"));
    const ws = Workspace.init(dir);
    const project = await createSampleProject(ws, "novel");
    const root = project.root;
    ws.close();
    const script = join(dir, "script.json");
    writeFileSync(script, JSON.stringify({ profiles: { adhoc: [readerTurn(1), readerTurn(2)] } }));
    const withScript = (args: string[]) => [...args, "--script", script];

    const started = runNbook(
      withScript([
        "workflows",
        "run",
        "book-backfill",
        "--args",
        '{"batchSize":50,"concurrency":1}',
        "--json",
      ]),
      { cwd: root },
    );
    expect(started.stderr).not.toContain("error");
    const runId = JSON.parse(started.stdout).run.id as string;
    expect(JSON.parse(started.stdout).run.status).toBe("waiting");

    const files = [1, 2].flatMap((c) =>
      Array.from({ length: PER_CHAPTER }, (_, i) =>
        join(root, "lorebook", "characters", `person-${c}-${i + 1}`, "index.md"),
      ),
    );
    const written = () => files.filter((f) => existsSync(f)).length;
    child = spawn(NBOOK_BIN, withScript(["workflows", "answer", runId, "--answers", '{"batch-1":true}']), {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    // Killed between two proposals: some entries are written, most are not.
    await until(() => written() >= 3, "three entries written");
    child.kill("SIGKILL");
    await new Promise((r) => child!.once("exit", r));
    child = null;
    const before = written();
    expect(before).toBeLessThan(files.length);
    const store = WorkflowStore.open(join(dir, ".nbook", "workflows.sqlite"));
    try {
      expect(store.run(runId).status).toBe("running");
    } finally {
      store.close();
    }

    const resumed = runNbook(withScript(["workflows", "resume", runId, "--json"]), { cwd: root });
    expect(resumed.status).toBe(0);
    const view = JSON.parse(resumed.stdout);
    expect(view.run.status).toBe("completed");
    expect(view.run.result.failed).toEqual([]);
    expect(view.run.result.written).toHaveLength(files.length + 1);
    for (const f of files)
      expect(readFileSync(f, "utf8")).toMatch(/^# Person \d\.\d+\n\nAppears in chapter \d\.\n$/);

    // The thread is one row, however the crash fell.
    const threads = runNbook(["tool", "get_story_thread", "--input", '{"limit":200}', "--json"], {
      cwd: root,
    });
    const rows = JSON.parse(threads.stdout).details.rows as { name: string }[];
    expect(rows.filter((t) => t.name === "the-cut-page")).toHaveLength(1);

    // Each entry's file has exactly one change in the history, made by the run's call of `write` —
    // but the write the kill interrupted after its file was written and before its change was
    // recorded: its file shows as an edit made outside NeuroBook (the resumed write changed nothing).
    const history = runNbook(["history", "--json", "--limit", "500"], { cwd: root });
    expect(history.status).toBe(0);
    const changes = JSON.parse(history.stdout) as {
      actor: string;
      callId: string | null;
      tool: string | null;
      targets: string[] | null;
    }[];
    const byRun = (c: (typeof changes)[number]) => c.callId?.startsWith(`workflow:${runId}#`) === true;
    let outside = 0;
    for (const f of files) {
      const rel = f.slice(root.length + 1);
      const of = changes.filter((c) => c.targets?.includes(rel));
      expect(of, rel).toHaveLength(1);
      if (byRun(of[0])) expect(of[0].tool).toBe("write");
      else {
        expect(of[0].actor).toBe("outside");
        outside++;
      }
    }
    expect(outside).toBeLessThanOrEqual(1);
    const mine = changes.filter(byRun);
    expect(mine.some((c) => c.tool === "save_story_thread")).toBe(true);
    // The listing names the run beside each of its changes.
    const listing = runNbook(["history", "--limit", "500"], { cwd: root }).stdout.split("\n");
    expect(listing.filter((l) => l.endsWith(`(workflow ${runId})`))).toHaveLength(mine.length);
  }, 180_000);
});
