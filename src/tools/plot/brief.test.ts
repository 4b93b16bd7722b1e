import { afterEach, describe, expect, it } from "vitest";
import { plotFixture } from "../../../test/plot/tool-fixture.js";
import { openWorld } from "../../world/world.js";

let f: ReturnType<typeof plotFixture>;
afterEach(() => f?.cleanup());

/** A small book: a world with a hero and a castle, one chapter with one anchored scene. */
async function book(
  language: "en" | "zh" = "en",
  brief: Record<string, string> = { mustHide: "the king is alive" },
) {
  f = plotFixture(language);
  const world = openWorld(f.project);
  world.slice.write({
    time: 100,
    title: "Wounded",
    summary: "the hero is hurt",
    patches: [
      { subjectId: "hero", type: "character", name: "Aren", path: "/hp", op: "replace", value: 90 },
      {
        subjectId: "castle",
        type: "location",
        name: "Black Keep",
        path: "/name",
        op: "replace",
        value: "Black Keep",
      },
      { subjectId: "stranger", type: "character", name: "Stranger", path: "/hp", op: "replace", value: 5 },
    ],
  });
  world.slice.write({
    time: 5000,
    title: "Later",
    patches: [{ subjectId: "hero", path: "/hp", op: "replace", value: 10 }],
  });
  const thread = await f.create("save_story_thread", { name: "main", title: "Main line", isMain: true });
  const chapter = await f.create("save_story_chapter", { name: "ch-1", title: "The Keep", brief });
  const scene = await f.create("save_story_scene", {
    threadId: thread,
    chapterId: chapter,
    title: "Arrival at the keep",
    purpose: "show the cost of the journey",
    worldAnchor: { startInstant: 50, endInstant: 300, subjectIds: ["hero"], locationSubjectId: "castle" },
    refs: [{ relation: "defines", target: "lorebook/keep.md", note: "layout" }],
  });
  return { thread, chapter, scene };
}

/** Patches of the first slice that touch the scene's subjects (schema defaults included). */
const relevantPatches = () =>
  openWorld(f.project)
    .slice.list({ withPatches: true })[0]
    .patches!.filter((p) => p.subjectId === "hero" || p.subjectId === "castle").length;

const brief = async (chapterId: number) => {
  const r = await f.call("get_chapter_writer_brief", { chapterId });
  if (!r.ok) throw new Error(r.error.message);
  return { md: r.text, d: r.details as any };
};

describe("get_chapter_writer_brief", () => {
  it("is ready with world state at each scene's end, the information control and suggested reading", async () => {
    const { chapter } = await book();
    const { md, d } = await brief(chapter);
    expect(d.status).toBe("ready");
    expect(md).toContain("## Information control (required)");
    expect(md).toContain("- Must stay hidden: the king is alive");
    expect(md).toContain("### 1. Arrival at the keep");
    expect(md).toContain("Main line (main thread)");
    expect(md).toContain("Aren (character): hp: 90");
    expect(md).not.toContain("hp: 10");
    expect(md).toContain(`Wounded — the hero is hurt (${relevantPatches()} changes)`);
    expect(md).not.toContain("Stranger");
    expect(md).toContain("## Suggested reading\n- lorebook/keep.md (defines · layout)");
    expect(d.scenes[0].world.subjects.map((s: { subjectId: string }) => s.subjectId).sort()).toEqual([
      "castle",
      "hero",
    ]);
  });

  it("follows the status precedence: needs_plot, needs_world_anchor, needs_world_context, needs_chapter_brief, ready", async () => {
    const { chapter, thread, scene } = await book("en", {});
    const empty = await f.create("save_story_chapter", { name: "empty", title: "Empty" });
    const e = await brief(empty);
    expect(e.d.status).toBe("needs_plot");
    expect(e.d.warnings[0]).toMatch(/No scenes/);

    expect((await brief(chapter)).d.status).toBe("needs_chapter_brief");
    expect((await brief(chapter)).md).toContain("⚠ Not set");

    await f.ok("save_story_scene", {
      action: "update",
      sceneId: scene,
      worldAnchor: { subjectIds: ["hero", "future-ally"] },
    });
    const ctx = await brief(chapter);
    expect(ctx.d.status).toBe("needs_world_context");
    expect(ctx.d.warnings.join("\n")).toContain("future-ally");

    await f.ok("save_story_scene", {
      action: "create",
      threadId: thread,
      chapterId: chapter,
      title: "Unanchored",
    });
    const anchor = await brief(chapter);
    expect(anchor.d.status).toBe("needs_world_anchor");
    expect(anchor.d.scenes[1].world).toBeNull();
  });

  it("moves from needs_chapter_brief to ready when mustHide is filled (F1)", async () => {
    const { chapter } = await book("en", {});
    expect((await brief(chapter)).d.status).toBe("needs_chapter_brief");
    await f.ok("save_story_chapter", {
      action: "update",
      chapterId: chapter,
      brief: { mustHide: "who sent the letter" },
    });
    expect((await brief(chapter)).d.status).toBe("ready");
  });

  it("ignores archived scenes everywhere: status, scenes, tasks, reading and decisions", async () => {
    const { chapter, thread } = await book();
    const gone = await f.create("save_story_scene", {
      threadId: thread,
      chapterId: chapter,
      title: "Cut scene",
      refs: [{ relation: "uses", target: "lorebook/cut.md" }],
    });
    const p = await f.create("save_story_promise", { name: "sword", title: "The sword" });
    await f.ok("save_promise_beat", { action: "set", promiseId: p, sceneId: gone, kind: "plant" });
    await f.ok("save_story_decision", {
      action: "create",
      name: "d",
      title: "D",
      question: "q",
      anchor: { kind: "scene", id: gone },
    });
    expect((await brief(chapter)).d.status).toBe("needs_world_anchor");
    await f.ok("save_story_scene", { action: "archive", sceneId: gone });
    const { md, d } = await brief(chapter);
    expect(d.status).toBe("ready");
    expect(md).not.toContain("Cut scene");
    expect(md).not.toContain("lorebook/cut.md");
    expect(d.promiseTasks).toEqual([]);
    expect(d.openDecisions).toEqual([]);
    expect(md).not.toContain("## Promise tasks");
    expect(md).not.toContain("## Open decisions");
  });

  it("lists promise tasks by scene with payoff expectations only on payoffs, skipping abandoned promises", async () => {
    const { chapter, thread, scene } = await book();
    const second = await f.create("save_story_scene", {
      threadId: thread,
      chapterId: chapter,
      title: "Duel",
    });
    const ring = await f.create("save_story_promise", {
      name: "ring",
      title: "The ring",
      payoffExpectation: "shock",
    });
    const oath = await f.create("save_story_promise", {
      name: "oath",
      title: "The oath",
      payoffExpectation: "relief",
    });
    const dead = await f.create("save_story_promise", { name: "dead", title: "Dead end" });
    await f.ok("save_promise_beat", {
      action: "set",
      promiseId: ring,
      sceneId: scene,
      kind: "plant",
      note: "on her hand",
    });
    await f.ok("save_promise_beat", { action: "set", promiseId: oath, sceneId: second, kind: "advance" });
    await f.ok("save_promise_beat", { action: "set", promiseId: ring, sceneId: second, kind: "payoff" });
    await f.ok("save_promise_beat", { action: "set", promiseId: dead, sceneId: second, kind: "plant" });
    await f.ok("save_story_promise", { action: "abandon", promiseId: dead });
    const { md, d } = await brief(chapter);
    expect(d.promiseTasks.map((t: any) => [t.sceneId, t.promiseName, t.kind, t.payoffExpectation])).toEqual([
      [scene, "ring", "plant", null],
      [second, "oath", "advance", null],
      [second, "ring", "payoff", "shock"],
    ]);
    expect(md).toContain(
      '### Scene "Arrival at the keep"\n- [Plant] The ring (ring): seed it naturally; do not explain it yet\n  - This time: on her hand',
    );
    expect(md.split("Intended dramatic effect").length - 1).toBe(1);
    expect(md).not.toContain("relief");
    expect(md.indexOf("## Plot points by scene")).toBeLessThan(md.indexOf("## Promise tasks"));
    expect(md.indexOf("## Promise tasks")).toBeLessThan(md.indexOf("## Suggested reading"));
  });

  it("warns about open decisions anchored on the chapter's parts or due within 3 chapters", async () => {
    const { chapter, thread, scene } = await book();
    const chapters = [];
    for (let i = 2; i <= 6; i++) {
      chapters.push(await f.create("save_story_chapter", { name: `ch-${i}`, title: `C${i}` }));
    }
    const p = await f.create("save_story_promise", { name: "p", title: "P" });
    await f.ok("save_promise_beat", { action: "set", promiseId: p, sceneId: scene, kind: "plant" });
    const mk = async (name: string, extra: Record<string, unknown>) =>
      await f.create("save_story_decision", {
        name,
        title: name,
        question: `${name}?`,
        options: [{ option: "a" }, { option: "b", note: "n" }],
        ...extra,
      });
    const touched = [
      await mk("on-chapter", { anchor: { kind: "chapter", id: chapter } }),
      await mk("on-scene", { anchor: { kind: "scene", id: scene } }),
      await mk("on-thread", { anchor: { kind: "thread", id: thread } }),
      await mk("on-promise", { anchor: { kind: "promise", id: p } }),
      await mk("due-3", { deadlineChapterId: chapters[2] }),
      await mk("due-now", { deadlineChapterId: chapter }),
    ];
    await mk("other-chapter", { anchor: { kind: "chapter", id: chapters[0] } });
    await mk("due-4", { deadlineChapterId: chapters[3] });
    await mk("story-level", {});
    const decided = await mk("decided", { anchor: { kind: "chapter", id: chapter } });
    await f.ok("save_story_decision", {
      action: "sign_off",
      decisionId: decided,
      conclusion: "c",
      reason: "r",
      risk: "k",
    });
    const { md, d } = await brief(chapter);
    expect(d.openDecisions.map((x: { decisionId: number }) => x.decisionId)).toEqual(touched);
    expect(md).toContain("## Open decisions (warning)");
    expect(md).toContain("Do not hard-code any candidate answer");
    expect(md).toContain(
      '### on-scene (on-scene)\n- Question: on-scene?\n- Options: a / b (n)\n- Why it is here: anchored on scene "Arrival at the keep"',
    );
    expect(md).toContain("due in 3 chapters");
  });

  it("writes the brief in Chinese for a Chinese project", async () => {
    const { chapter, scene } = await book("zh", {});
    const p = await f.create("save_story_promise", {
      name: "ring",
      title: "戒指",
      payoffExpectation: "震惊",
    });
    await f.ok("save_promise_beat", { action: "set", promiseId: p, sceneId: scene, kind: "payoff" });
    const { md, d } = await brief(chapter);
    expect(d.status).toBe("needs_chapter_brief");
    expect(md).toContain("# 章节写作简报");
    expect(md).toContain("## 信息控制（必填）\n⚠ 未设置");
    expect(md).toContain("## 关键剧情点（按场景）");
    expect(md).toContain("- [兑现] 戒指（ring）：正面兑现");
    expect(md).toContain("  - 预期戏剧效果: 震惊");
    expect(md).toContain("## 建议读取");
    expect(md).not.toContain("Information control");
  });
});

describe("get_scene_world_context", () => {
  it("returns slices touching the scene's subjects with patch counts, and states at the scene's end", async () => {
    const { scene } = await book();
    const ctx = await f.ok("get_scene_world_context", { sceneId: scene });
    expect(ctx.slices.map((s: any) => [s.title, s.patchCount])).toEqual([["Wounded", relevantPatches()]]);
    expect(relevantPatches()).toBeLessThan(
      openWorld(f.project).slice.list({ withPatches: true })[0].patches!.length,
    );
    expect(ctx.startTime).toMatch(/^0001-01-01/);
    const hero = ctx.subjectStates.find((s: any) => s.subjectId === "hero");
    expect(hero).toMatchObject({ type: "character", name: "Aren" });
    expect(hero.attrs.hp).toBe(90);
    expect(ctx.unresolvedSubjectIds).toEqual([]);
  });

  it("names unknown subjects and fails clearly without a time range", async () => {
    const { scene, thread } = await book();
    await f.ok("save_story_scene", {
      action: "update",
      sceneId: scene,
      worldAnchor: { subjectIds: ["ghost"], locationSubjectId: null },
    });
    const ctx = await f.ok("get_scene_world_context", { sceneId: scene });
    expect(ctx.unresolvedSubjectIds).toEqual(["ghost"]);
    expect(ctx.slices).toEqual([]);
    const bare = await f.create("save_story_scene", { threadId: thread, title: "Bare" });
    const r = await f.call("get_scene_world_context", { sceneId: bare });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/no time range/);
  });

  it("takes calendar strings in and gives them back, and refuses an end before the start", async () => {
    const { scene } = await book();
    const s = await f.ok("save_story_scene", {
      action: "update",
      sceneId: scene,
      worldAnchor: {
        startTime: "0001-01-02 00:00:00 AD",
        endTime: "0001-01-03 00:00:00 AD",
        startInstant: undefined,
      },
    });
    expect(s.worldAnchor).toMatchObject({
      startInstant: 86400,
      endInstant: 172800,
      endTime: "0001-01-03 00:00:00 AD",
    });
    const r = await f.call("save_story_scene", {
      action: "update",
      sceneId: scene,
      worldAnchor: { endInstant: 10 },
    });
    expect(r.ok ? null : r.error.code).toBe("invalid_input");
    const bad = await f.call("save_story_scene", {
      action: "update",
      sceneId: scene,
      worldAnchor: { startTime: "yesterday" },
    });
    expect(bad.ok ? null : bad.error.fields?.[0].pointer).toBe("/worldAnchor/startTime");
  });
});
