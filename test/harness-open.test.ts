import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { modelCallsRecorded, openHarness } from "../src/runtime/open.js";
import type { Project } from "../src/workspace/project.js";
import { Workspace } from "../src/workspace/workspace.js";

let dir: string;
let workspace: Workspace;
let project: Project;

// A workspace whose default model is a configured scripted provider (no --script anywhere).
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "nbook-harness-open-"));
  workspace = Workspace.init(dir);
  project = workspace.createProject("novel", { sample: true });
  writeFileSync(
    join(dir, "turns.json"),
    JSON.stringify({
      turns: [
        { text: "first answer" },
        { toolCalls: [{ name: "write", input: { path: "notes/n.md", content: "n\n" } }] },
        { expect: { lastToolResult: "notes/n.md" }, text: "written after approval" },
      ],
    }),
  );
  writeFileSync(
    join(workspace.nbookDir, "config.json"),
    JSON.stringify({
      providers: { demo: { kind: "scripted", script: "turns.json" } },
      defaultModel: "demo/any",
    }),
  );
});
afterEach(() => {
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("openHarness with a configured scripted provider", () => {
  it("keeps the script's place across runs of one process, and resumes it in the next process", async () => {
    const first = openHarness({ workspace, project });
    const s = first.createSession({ profileKey: "leader.default", project: "novel", mode: "discuss" });
    expect(s.model).toBe("demo/any");
    expect(await first.invoke(s.id, { mode: "prompt", message: "hello" })).toMatchObject({
      status: "completed",
      finalMessage: "first answer",
    });
    const waiting = await first.invoke(s.id, { mode: "prompt", message: "write a note" });
    expect(waiting).toMatchObject({ status: "waiting", pending: { tool: "write" } });
    const calls = modelCallsRecorded(first.store, s.id);
    first.close();

    const second = openHarness({ workspace, project, scriptStart: calls });
    try {
      const done = await second.settle(s.id, waiting.pending!.approvalId, { approved: true });
      expect(done).toMatchObject({ status: "completed", finalMessage: "written after approval" });
    } finally {
      second.close();
    }
  });
});

describe("openHarness and overridden profiles", () => {
  it("says once, before the session runs, that a profile overrides the built-in one", async () => {
    writeFileSync(
      join(project.root, ".nbook", "agent", "profiles", "leader.yaml"),
      "key: leader.default\nname: Project leader\ntools: [read, write, execute_sql]\nprompt: Lead.\n",
    );
    const notices: string[] = [];
    const h = openHarness({ workspace, project, notice: (line) => notices.push(line) });
    try {
      const s = h.createSession({ profileKey: "leader.default", project: "novel" });
      expect(notices).toEqual([
        "notice: profile leader.default is not the built-in one: the project file novel/.nbook/agent/profiles/leader.yaml overrides it with its own prompt and tools",
      ]);
      await h.invoke(s.id, { mode: "prompt", message: "hello" });
      expect(notices).toHaveLength(1);
    } finally {
      h.close();
    }
  });

  it("says nothing for a built-in profile", () => {
    const notices: string[] = [];
    const h = openHarness({ workspace, project, notice: (line) => notices.push(line) });
    try {
      h.createSession({ profileKey: "leader.default", project: "novel" });
      expect(notices).toEqual([]);
    } finally {
      h.close();
    }
  });
});
