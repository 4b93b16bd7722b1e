// /undo and rewind cover the session's whole turn: the changes of the sub-agents it started in that
// turn (child sessions, as workflow participants are too) are taken back with its own, all at once.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { rewindSession, undoLastTurn } from "../../src/harness/rewind.js";
import { History } from "../../src/history/history.js";
import { type CollabFixture, collabFixture } from "../collab/fixture.js";

let fx: CollabFixture;
afterEach(() => fx?.close());

const CHAPTER = "manuscript/ch-01/index.md";
const call = (name: string, input: Record<string, unknown>) => ({ toolCalls: [{ name, input }] });

/** A leader whose first turn writes a note; its second starts a writer that drafts the chapter, then writes again. */
async function leaderWithWriter() {
  fx = collabFixture({
    "leader.default": [
      call("write", { path: "notes/plan.md", content: "plan\n" }),
      { text: "planned" },
      call("create_agent", { profileKey: "writer" }),
      call("invoke_agent", { sessionId: 2, message: "Draft it.", input: { path: CHAPTER } }),
      call("write", { path: "notes/plan.md", content: "plan, drafted\n" }),
      { text: "drafted" },
    ],
    writer: [
      call("write", { path: CHAPTER, content: "The bell rang.\n" }),
      call("report_result", { result: { summary: "drafted" } }),
    ],
  });
  const leader = fx.root("leader.default", { mode: "normal" });
  await fx.harness.invoke(leader.id, { mode: "prompt", message: "plan it" });
  const firstTurnEnd = fx.store.activePath(leader.id).at(-1)?.id as string;
  await fx.harness.invoke(leader.id, { mode: "prompt", message: "draft chapter one" });
  const root = fx.project.root;
  expect(readFileSync(join(root, CHAPTER), "utf8")).toBe("The bell rang.\n");
  expect(readFileSync(join(root, "notes/plan.md"), "utf8")).toBe("plan, drafted\n");
  const writer = fx.store.listSessions({ parentSessionId: leader.id });
  expect(writer.map((s) => s.profileKey)).toEqual(["writer"]);
  return { leader: leader.id, writer: writer[0].id, firstTurnEnd, root };
}

describe("the whole turn", () => {
  it("/undo takes back the turn's own changes and those of the writer it started", async () => {
    const { leader, writer, root } = await leaderWithWriter();
    const history = History.of(fx.project);
    const childChange = history.index.list({ session: writer });
    expect(childChange.map((c) => c.targets)).toEqual([[CHAPTER]]);

    const r = await undoLastTurn(fx.store, fx.workspace, leader);
    expect(r.reverted).toContain(childChange[0].id);
    expect(r.reverted).toHaveLength(2);
    expect(existsSync(join(root, CHAPTER))).toBe(false);
    // The first turn's note stays as that turn left it.
    expect(readFileSync(join(root, "notes/plan.md"), "utf8")).toBe("plan\n");
    expect(history.index.get(r.revertChange as string).reverts).toHaveLength(2);
  });

  it("rewinding past the turn (files) takes the writer's chapter back too", async () => {
    const { leader, root, firstTurnEnd } = await leaderWithWriter();
    const r = await rewindSession(fx.store, fx.workspace, leader, firstTurnEnd, "files");
    expect(r.reverted).toHaveLength(2);
    expect(existsSync(join(root, CHAPTER))).toBe(false);
    expect(readFileSync(join(root, "notes/plan.md"), "utf8")).toBe("plan\n");
  });
});
