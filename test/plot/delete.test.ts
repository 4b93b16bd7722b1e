import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeDelete, hardDelete } from "../../src/plot/delete.js";
import { type PlotContext, plotContext } from "../../src/plot/index.js";
import { plotFixture } from "./tool-fixture.js";

let f: ReturnType<typeof plotFixture>;
let pc: PlotContext;
beforeEach(() => {
  f = plotFixture();
  pc = plotContext(f.project, "user");
});
afterEach(() => f.cleanup());

const ids = (rows: { id: number }[]) => rows.map((r) => r.id);

describe("the user's hard delete", () => {
  it("deleting a scene closes the gaps in its thread and chapter and reopens a promise it paid off", async () => {
    const t = await f.create("save_story_thread", { name: "t", title: "T" });
    const ch = await f.create("save_story_chapter", { name: "c", title: "C" });
    const [a, b, c] = [
      await f.create("save_story_scene", { threadId: t, chapterId: ch, title: "A" }),
      await f.create("save_story_scene", { threadId: t, chapterId: ch, title: "B" }),
      await f.create("save_story_scene", { threadId: t, chapterId: ch, title: "C" }),
    ];
    const p = await f.create("save_story_promise", { name: "p", title: "P" });
    await f.ok("save_promise_beat", { action: "set", promiseId: p, sceneId: b, kind: "payoff" });
    const d = await f.create("save_story_decision", {
      name: "d",
      title: "D",
      question: "q",
      anchor: { kind: "scene", id: b },
      serves: [`scene://${b}`],
    });
    expect(describeDelete(pc, "scene", b).effects).toEqual([
      "1 promise beat(s) are deleted",
      "1 decision serves/dependsOn entr(ies) are removed",
      "1 decision anchor(s) fall back to the story",
    ]);
    hardDelete(pc, "scene", b);
    const chapter = await f.ok("get_story_chapter", { chapterId: ch });
    expect(ids(chapter.scenes)).toEqual([a, c]);
    expect((await f.ok("get_story_scene_context", { sceneId: c })).scene).toMatchObject({
      threadSortOrder: 1,
      chapterSortOrder: 1,
    });
    expect((await f.ok("get_story_promise", { promiseId: p })).status).toBe("open");
    const decision = await f.ok("get_story_decision", { decisionId: d });
    expect(decision.anchor.kind).toBe("story");
    expect(decision.serves).toEqual([]);
  });

  it("a thread names the links and anchors on the scenes it takes along", async () => {
    const t = await f.create("save_story_thread", { name: "t", title: "T" });
    const s = await f.create("save_story_scene", { threadId: t, title: "S" });
    await f.create("save_story_decision", {
      name: "d",
      title: "D",
      question: "q",
      anchor: { kind: "scene", id: s },
    });
    await f.create("save_story_decision", {
      name: "e",
      title: "E",
      question: "q",
      dependsOn: [`thread://${t}`],
    });
    expect(describeDelete(pc, "thread", t)).toEqual({
      target: `thread ${t} "T"`,
      effects: [
        "1 scene(s) of the thread are deleted",
        "1 decision serves/dependsOn entr(ies) are removed",
        "1 decision anchor(s) fall back to the story",
      ],
    });
  });

  it("deleting a decision gives the decisions it superseded back their earlier state", async () => {
    const signed = { conclusion: "c", reason: "r", risk: "k" };
    const old = await f.create("save_story_decision", { name: "old", title: "Old", question: "q" });
    const draft = await f.create("save_story_decision", { name: "draft", title: "Draft", question: "q" });
    const next = await f.create("save_story_decision", { name: "next", title: "Next", question: "q" });
    await f.ok("save_story_decision", { action: "sign_off", decisionId: old, ...signed });
    await f.ok("save_story_decision", { action: "sign_off", decisionId: next, ...signed });
    await f.ok("save_story_decision", { action: "supersede", decisionId: old, supersededById: next });
    await f.ok("save_story_decision", { action: "supersede", decisionId: draft, supersededById: next });
    expect(describeDelete(pc, "decision", next).effects).toEqual([
      "2 decision(s) it superseded return to decided (or open, if never signed off)",
    ]);
    hardDelete(pc, "decision", next);
    expect(await f.ok("get_story_decision", { decisionId: old })).toMatchObject({
      status: "decided",
      conclusion: "c",
      supersededById: null,
    });
    expect(await f.ok("get_story_decision", { decisionId: draft })).toMatchObject({
      status: "open",
      supersededById: null,
    });
  });

  it("deleting a chapter keeps its scenes out of any chapter and clears deadlines", async () => {
    const t = await f.create("save_story_thread", { name: "t", title: "T" });
    const first = await f.create("save_story_chapter", { name: "c1", title: "C1" });
    const ch = await f.create("save_story_chapter", { name: "c2", title: "C2" });
    const last = await f.create("save_story_chapter", { name: "c3", title: "C3" });
    const s = await f.create("save_story_scene", { threadId: t, chapterId: ch, title: "S" });
    const p = await f.create("save_story_promise", { name: "p", title: "P", deadlineChapterId: ch });
    expect(describeDelete(pc, "chapter", ch).effects).toEqual([
      "1 scene(s) are taken out of the chapter (kept)",
      "1 promise/decision deadline(s) are cleared",
    ]);
    hardDelete(pc, "chapter", ch);
    expect((await f.ok("get_story_scene_context", { sceneId: s })).scene).toMatchObject({
      chapterId: null,
      chapterSortOrder: null,
    });
    expect((await f.ok("get_story_promise", { promiseId: p })).deadlineChapterId).toBeNull();
    const rows = (await f.ok("get_story_chapter", {})).rows;
    expect(rows.map((r: { id: number; sortOrder: number }) => [r.id, r.sortOrder])).toEqual([
      [first, 0],
      [last, 1],
    ]);
  });
});
