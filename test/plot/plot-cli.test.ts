import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  plotContext,
  saveBeat,
  saveChapter,
  saveDecision,
  savePromise,
  saveScene,
  saveThread,
} from "../../src/plot/index.js";
import { Workspace } from "../../src/workspace/workspace.js";

const BIN = fileURLToPath(new URL("../../bin/nbook", import.meta.url));
let home: string;
let ws: string;

function nbook(args: string[]) {
  const r = spawnSync(BIN, args, {
    cwd: home,
    env: { ...process.env, NBOOK_WORKSPACE: ws },
    encoding: "utf8",
    input: "",
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
const tool = (key: string, input: unknown) => {
  const r = nbook(["tool", key, "--project", "novel", "--json", "--input", JSON.stringify(input)]);
  const out = JSON.parse(r.stdout);
  if (!out.ok) throw new Error(`${key}: ${out.error.message}`);
  return out.details;
};

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), "nbook-plot-cli-"));
  ws = join(home, "ws");
  expect(nbook(["init", ws]).status).toBe(0);
  expect(nbook(["project", "create", "novel", "--title", "Night Roads"]).status).toBe(0);
}, 60_000);
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("nbook plot", () => {
  it("shows the tree, a chapter, its brief, promises and decisions, and hard-deletes with the cascade named", () => {
    // Build the story straight through the domain (fast), then read it back through the CLI.
    const workspace = Workspace.open(ws);
    const pc = plotContext(workspace.project("novel"), "user");
    const t = saveThread(pc, { action: "create", name: "road", title: "The road", isMain: true });
    const c = saveChapter(pc, {
      action: "create",
      name: "ch-1",
      title: "Departure",
      brief: { goal: "leave home" },
    });
    const s = saveScene(pc, { action: "create", threadId: t.id, chapterId: c.id, title: "Gate at dawn" });
    const p = savePromise(pc, { action: "create", name: "letter", title: "The letter" });
    saveBeat(pc, { action: "set", promiseId: p.id, sceneId: s.id, kind: "payoff" });
    saveDecision(pc, { action: "create", name: "d-mother", title: "Mother", question: "Does she know?" });
    workspace.close();

    const tree = nbook(["plot", "tree", "--project", "novel"]);
    expect(tree.status).toBe(0);
    expect(tree.stdout).toContain("Night Roads");
    expect(tree.stdout).toContain(`#${c.id} Departure (1 scene)`);
    expect(tree.stdout).toContain("The road [main]");
    expect(tree.stdout).not.toContain("goal: leave home");
    const detail = nbook(["plot", "tree", "--detail", "--project", "novel"]);
    expect(detail.stdout).toContain("      goal: leave home");
    expect(detail.stdout).toContain(`      - #${s.id} Gate at dawn [draft]`);

    const chapter = nbook(["plot", "chapter", String(c.id), "--project", "novel"]);
    expect(chapter.stdout).toContain("goal: leave home");
    expect(chapter.stdout).toContain("Gate at dawn [draft] (no time range)");

    const brief = nbook(["plot", "brief", String(c.id), "--project", "novel"]);
    expect(brief.stdout).toContain("Status: needs_world_anchor");

    expect(nbook(["plot", "promises", "--project", "novel", "--status", "fulfilled"]).stdout).toContain(
      "The letter (letter)",
    );
    expect(nbook(["plot", "promises", "--project", "novel", "--status", "open"]).stdout).toContain(
      "No promises.",
    );
    expect(nbook(["plot", "decisions", "--project", "novel", "--json"]).stdout).toContain(
      '"name":"d-mother"',
    );
    expect(nbook(["plot", "promises", "--project", "novel", "--status", "nope"]).status).toBe(2);

    const refused = nbook(["plot", "delete", "thread", String(t.id), "--project", "novel"]);
    expect(refused.stdout).toContain("1 scene(s) of the thread are deleted");
    expect(refused.stdout).toContain("1 promise beat(s) are deleted");
    expect(refused.status).toBe(2);
    const json = nbook(["plot", "delete", "thread", String(t.id), "--project", "novel", "--json"]);
    const answer = JSON.parse(json.stdout);
    expect(answer.ok).toBe(false);
    expect(answer.error.details.effects).toContain("1 scene(s) of the thread are deleted");
    expect(json.status).toBe(2);
    expect(tool("get_story_thread", { threadId: t.id }).id).toBe(t.id);

    const done = nbook(["plot", "delete", "thread", String(t.id), "--project", "novel", "--yes"]);
    expect(done.status).toBe(0);
    expect(done.stdout).toContain(`Deleted thread ${t.id} "The road"`);
    const promise = tool("get_story_promise", { promiseId: p.id });
    expect(promise.status).toBe("open");
    expect(promise.beats).toEqual([]);
  }, 120_000);
});
