import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Workspace } from "../../src/workspace/workspace.js";
import { runNbookInProcess } from "../helpers.js";

const SCRIPT = `
sessions:
  "1":
    - toolCalls: [{ name: create_agent, input: { profileKey: writer, title: "Chapter draft" } }]
    - toolCalls: [{ name: invoke_agent, input: { sessionId: 2, message: "Draft it", input: { path: ch.md } } }]
    - text: "The writer waits for your approval."
    - expect: { lastUser: "Drafted ch.md" }
      text: "Chapter drafted by the writer."
  "2":
    - toolCalls: [{ name: write, input: { path: ch.md, content: "Bells.\\n" } }]
    - toolCalls: [{ name: report_result, input: { result: "Drafted ch.md", data: { summary: s } } }]
`;

let dir: string;
let root: string;
let script: string;
const nbook = (...args: string[]) => runNbookInProcess([...args, "--workspace", root], { cwd: dir });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "nbook-collab-cli-"));
  root = join(dir, "ws");
  Workspace.init(root).createProject("novel", { sample: false });
  script = join(dir, "script.yaml");
  writeFileSync(script, SCRIPT);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("delegation in the terminal", () => {
  it("run → the child waits; sessions list --tree and show name it; approve <child> runs it and its result flows back", async () => {
    const run = await nbook(
      "run",
      "Draft the chapter",
      "--project",
      "novel",
      "--mode",
      "discuss",
      "--script",
      script,
      "--json",
    );
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ sessionId: "1", status: "completed" });
    expect(existsSync(join(root, "novel", "ch.md"))).toBe(false);

    const tree = await nbook("sessions", "list", "--tree");
    expect(tree.stdout).toMatch(
      /^#1 leader\.default \[idle, discuss\] Draft the chapter\n└─ #2 writer \[waiting, normal\] Chapter draft\n$/,
    );
    const treeJson = JSON.parse((await nbook("sessions", "list", "--tree", "--json")).stdout);
    expect(treeJson[0].children[0]).toMatchObject({ id: "2", parentSessionId: "1", detached: false });

    const show = await nbook("sessions", "show", "1");
    expect(show.stdout).toContain("Agents it created:");
    const waits = /waits on (\d+): write/.exec(show.stdout);
    expect(waits, show.stdout).not.toBeNull();
    const approvalId = waits?.[1] as string;
    expect(show.stdout).toContain(`nbook approve 2 ${approvalId}`);
    expect((await nbook("sessions", "show", "2")).stdout).toContain("Created by agent session 1.");

    const approve = await nbook("approve", "2", approvalId, "--script", script);
    expect(approve.status, approve.stderr).toBe(0);
    expect(readFileSync(join(root, "novel", "ch.md"), "utf8")).toBe("Bells.\n");
    expect(approve.stdout).toContain(
      "The result went back to agent session 1, whose turn ended completed: Chapter drafted by the writer.",
    );
    const leader = JSON.parse((await nbook("sessions", "show", "1", "--json")).stdout);
    expect(JSON.stringify(leader.path)).toContain("Drafted ch.md");
  });
});

describe("nbook chat with a waiting agent", () => {
  it("asks about the agent's approval after the turn, and the agent's result starts the session's next turn", () => {
    const chatRoot = join(dir, "chat-ws");
    Workspace.init(chatRoot).createProject("novel", { sample: false });
    const r = spawnSync(
      process.execPath,
      [
        join(import.meta.dirname, "..", "..", "bin", "nbook"),
        "chat",
        "--project",
        "novel",
        "--mode",
        "discuss",
        "--script",
        script,
        "--workspace",
        chatRoot,
      ],
      { cwd: dir, encoding: "utf8", input: "Draft the chapter\ny\n/exit\n", timeout: 60_000 },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("Agent 2 (writer) waits:");
    expect(r.stdout).toContain("Approve write? [y/n]");
    expect(r.stdout.indexOf("Chapter drafted by the writer.")).toBeGreaterThan(
      r.stdout.indexOf("Agent 2 (writer) waits:"),
    );
    expect(readFileSync(join(chatRoot, "novel", "ch.md"), "utf8")).toBe("Bells.\n");
  });
});
