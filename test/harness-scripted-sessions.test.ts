import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Harness } from "../src/harness/loop.js";
import { openHarness } from "../src/runtime/open.js";
import { Workspace } from "../src/workspace/workspace.js";
import { runNbookInProcess } from "./helpers.js";

let dir: string;
let workspace: Workspace;
let harness: Harness | null = null;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "nbook-keyed-"));
  workspace = Workspace.init(join(dir, "ws"));
  workspace.createProject("novel");
});
afterEach(() => {
  harness?.close();
  harness = null;
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A writer's report_result input (its output schema needs a summary), as inline YAML. */
const REPORT = (result: string) => `{ result: "${result}", data: { summary: "${result}" } }`;

/** A harness on `script` (a keyed script file), as `--script` opens it. */
function open(script: string): Harness {
  const file = join(dir, "script.yaml");
  writeFileSync(file, script);
  harness = openHarness({ workspace, project: workspace.project("novel"), script: file, notice: () => {} });
  return harness;
}

describe("one scripted model driving several sessions through the harness", () => {
  it("each session is answered from its profile's turns, whatever order they run in", async () => {
    const h = open(
      [
        "profiles:",
        "  leader.default:",
        "    - text: the leader speaks",
        "  writer:",
        "    - expect: { system: 'You are the writer' }",
        `      toolCalls: [{ name: report_result, input: ${REPORT("the writer drafts")} }]`,
      ].join("\n"),
    );
    const leader = h.createSession({ profileKey: "leader.default", project: "novel" });
    const writer = h.createSession({ profileKey: "writer", project: "novel" });
    const w = await h.invoke(writer.id, { mode: "prompt", message: "draft" });
    expect(w).toMatchObject({ status: "completed", finalMessage: "the writer drafts" });
    const l = await h.invoke(leader.id, { mode: "prompt", message: "lead" });
    expect(l).toMatchObject({ status: "completed", finalMessage: "the leader speaks" });
  });

  it("a session's own turns win over its profile's", async () => {
    const h = open(
      [
        "profiles:",
        `  writer: [{ toolCalls: [{ name: report_result, input: ${REPORT("any writer")} }] }]`,
        "sessions:",
        `  2: [{ toolCalls: [{ name: report_result, input: ${REPORT("only session 2")} }] }]`,
      ].join("\n"),
    );
    const first = h.createSession({ profileKey: "writer", project: "novel" });
    const second = h.createSession({ profileKey: "writer", project: "novel" });
    expect(second.id).toBe("2");
    expect((await h.invoke(second.id, { mode: "prompt", message: "x" })).finalMessage).toBe("only session 2");
    expect((await h.invoke(first.id, { mode: "prompt", message: "x" })).finalMessage).toBe("any writer");
  });

  it("a session with no scripted turn left ends its run with an error naming the session", async () => {
    const h = open(
      ["profiles:", `  writer: [{ toolCalls: [{ name: report_result, input: ${REPORT("once")} }] }]`].join(
        "\n",
      ),
    );
    const writer = h.createSession({ profileKey: "writer", project: "novel" });
    expect((await h.invoke(writer.id, { mode: "prompt", message: "x" })).status).toBe("completed");
    const again = await h.invoke(writer.id, { mode: "prompt", message: "again" });
    expect(again.status).toBe("error");
    expect(again.error?.message).toContain(`no turn 2 for session ${writer.id} (profile writer)`);
    const leader = h.createSession({ profileKey: "leader.default", project: "novel" });
    const none = await h.invoke(leader.id, { mode: "prompt", message: "x" });
    expect(none.status).toBe("error");
    expect(none.error?.message).toContain("no section for it (it has profiles.writer)");
  });
});

describe("a keyed script across processes", () => {
  it("nbook approve in a new process resumes the child at its next turn, and the parent's flow-back turn after its history", async () => {
    const nbook = (args: string[]) => runNbookInProcess(args, { cwd: dir });
    writeFileSync(
      join(dir, "s.yaml"),
      [
        "profiles:",
        "  leader.default:",
        "    - toolCalls: [{ name: create_agent, input: { profileKey: writer } }]",
        "    - toolCalls: [{ name: invoke_agent, input: { sessionId: 2, message: write it, input: { path: notes/x.md } } }]",
        "    - text: The writer waits for your approval.",
        "    - text: The writer's note is in notes/x.md.",
        "  writer:",
        '    - toolCalls: [{ name: write, input: { path: notes/x.md, content: "first turn\\n" } }]',
        `    - toolCalls: [{ name: report_result, input: ${REPORT("wrote notes/x.md")} }]`,
      ].join("\n"),
    );
    const at = ["--script", "s.yaml", "--workspace", "ws"];
    const run = await nbook(["run", "go", "--mode", "discuss", "--project", "novel", "--json", ...at]);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ sessionId: "1", status: "completed" });
    const waiting = await nbook(["sessions", "show", "2", "--workspace", "ws"]);
    const approvalId = waiting.stdout.match(/nbook approve 2 (\d+)/)?.[1];
    expect(approvalId, waiting.stdout).toBeDefined();
    const approve = await nbook(["approve", "2", approvalId as string, ...at]);
    expect(approve.stderr).toBe("");
    expect(approve.status).toBe(0);
    // The writer's turn 1 ran once (approved), then its turn 2: it did not start its section over.
    expect(approve.stdout).toContain("report_result");
    expect(readFileSync(join(dir, "ws/novel/notes/x.md"), "utf8")).toBe("first turn\n");
    // The writer's result flows back to the leader in this process: the leader's section, first
    // called here, starts after the three answers already in its history, not at its first turn.
    const leader = await nbook(["sessions", "show", "1", "--workspace", "ws"]);
    expect(leader.stdout).toContain("assistant: The writer's note is in notes/x.md.");
    expect(leader.stdout.match(/create_agent \{/g)).toHaveLength(1);
  });
});
