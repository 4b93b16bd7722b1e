import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
import { runNbookInProcess } from "../helpers.js";

let home: string;
let ws: string;

function nbook(args: string[]) {
  return runNbookInProcess(args, { cwd: home, env: { NBOOK_WORKSPACE: ws } });
}
const tool = async (key: string, input: unknown) => {
  const r = await nbook(["tool", key, "--project", "novel", "--json", "--input", JSON.stringify(input)]);
  const out = JSON.parse(r.stdout);
  if (!out.ok) throw new Error(`${key}: ${out.error.message}`);
  return out.details;
};

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "nbook-plot-cli-"));
  ws = join(home, "ws");
  expect((await nbook(["init", ws])).status).toBe(0);
  expect((await nbook(["project", "create", "novel", "--title", "Night Roads"])).status).toBe(0);
}, 60_000);
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("nbook plot", () => {
  it("shows the tree, a chapter, its brief, promises and decisions, and hard-deletes with the cascade named", async () => {
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

    const tree = await nbook(["plot", "tree", "--project", "novel"]);
    expect(tree.status).toBe(0);
    expect(tree.stdout).toContain("Night Roads");
    expect(tree.stdout).toContain(`#${c.id} Departure (1 scene)`);
    expect(tree.stdout).toContain("The road [main]");
    expect(tree.stdout).not.toContain("goal: leave home");
    const detail = await nbook(["plot", "tree", "--detail", "--project", "novel"]);
    expect(detail.stdout).toContain("      goal: leave home");
    expect(detail.stdout).toContain(`      - #${s.id} Gate at dawn [draft]`);

    const chapter = await nbook(["plot", "chapter", String(c.id), "--project", "novel"]);
    expect(chapter.stdout).toContain("goal: leave home");
    expect(chapter.stdout).toContain("Gate at dawn [draft] (no time range)");

    const brief = await nbook(["plot", "brief", String(c.id), "--project", "novel"]);
    expect(brief.stdout).toContain("Status: needs_world_anchor");

    expect(
      (await nbook(["plot", "promises", "--project", "novel", "--status", "fulfilled"])).stdout,
    ).toContain("The letter (letter)");
    expect((await nbook(["plot", "promises", "--project", "novel", "--status", "open"])).stdout).toContain(
      "No promises.",
    );
    expect((await nbook(["plot", "decisions", "--project", "novel", "--json"])).stdout).toContain(
      '"name":"d-mother"',
    );
    expect((await nbook(["plot", "promises", "--project", "novel", "--status", "nope"])).status).toBe(2);

    const refused = await nbook(["plot", "delete", "thread", String(t.id), "--project", "novel"]);
    expect(refused.stdout).toContain("1 scene(s) of the thread are deleted");
    expect(refused.stdout).toContain("1 promise beat(s) are deleted");
    expect(refused.status).toBe(2);
    const json = await nbook(["plot", "delete", "thread", String(t.id), "--project", "novel", "--json"]);
    const answer = JSON.parse(json.stdout);
    expect(answer.ok).toBe(false);
    expect(answer.error.details.effects).toContain("1 scene(s) of the thread are deleted");
    expect(json.status).toBe(2);
    expect((await tool("get_story_thread", { threadId: t.id })).id).toBe(t.id);

    const done = await nbook(["plot", "delete", "thread", String(t.id), "--project", "novel", "--yes"]);
    expect(done.status).toBe(0);
    expect(done.stdout).toContain(`Deleted thread ${t.id} "The road"`);
    const promise = await tool("get_story_promise", { promiseId: p.id });
    expect(promise.status).toBe("open");
    expect(promise.beats).toEqual([]);
  }, 120_000);

  it("adds, lists, changes, moves, archives and deletes phases", async () => {
    const p = (...args: string[]) => nbook(["plot", ...args, "--project", "novel"]);
    const first = await p("phase", "add", "opening", "--title", "Opening", "--summary", "Home");
    expect(first.stdout).toContain("Created phase #");
    const opening = Number(/#(\d+)/.exec(first.stdout)![1]);
    const flight = JSON.parse(
      (await p("phase", "add", "flight", "--before", String(opening), "--json")).stdout,
    );
    expect(flight).toMatchObject({ name: "flight", title: "flight", sortOrder: 0 });
    expect((await p("phase", "add", "Bad Name")).stderr).toContain("/name: must be a lowercase slug");
    expect((await p("phase", "add", "x", "--before", "1", "--after", "2")).stderr).toContain(
      "Give --before or --after, not both",
    );
    expect((await p("phase", "set", String(opening))).status).toBe(2);

    const set = await p(
      "phase",
      "set",
      String(opening),
      "--title",
      "Going home",
      "--before",
      String(flight.id),
    );
    expect(set.stdout).toContain(`Updated phase #${opening} Going home (opening) at position 0.`);
    expect((await p("phases")).stdout).toBe(
      `#${opening} Going home (opening) — 0 threads\n#${flight.id} flight (flight) — 0 threads\n`,
    );

    const archived = await p("phase", "archive", String(flight.id));
    expect(archived.status).toBe(0);
    expect(archived.stdout).toContain("its threads are left out of the tree");
    expect((await p("phases")).stdout).not.toContain("flight");
    expect((await p("phases", "--all")).stdout).toContain(`#${flight.id} flight (flight) [archived]`);
    expect((await p("tree", "--all")).stdout).toContain(`Phase #${flight.id} flight (archived)`);
    expect((await p("phase", "set", String(flight.id), "--unarchive")).stdout).toContain("Updated phase");
    expect((await p("phase", "set", "999", "--title", "x")).stderr).toContain("No phase with id 999");

    await tool("save_story_thread", { action: "create", name: "run", title: "Run", phaseId: flight.id });
    const refused = await p("delete", "phase", String(flight.id));
    expect(refused.stdout).toContain("1 thread(s) become ungrouped (kept, with their scenes)");
    expect(refused.status).toBe(2);
    expect((await p("delete", "phase", String(flight.id), "--yes")).stdout).toContain(
      `Deleted phase ${flight.id} "flight"`,
    );
    expect((await p("tree")).stdout).toContain("Threads without a phase\n    #");
  }, 120_000);
});
