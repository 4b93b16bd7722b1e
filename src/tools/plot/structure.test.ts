import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { plotFixture } from "../../../test/plot/tool-fixture.js";
import { dispatch } from "../dispatch.js";

let f: ReturnType<typeof plotFixture>;
beforeEach(() => {
  f = plotFixture();
});
afterEach(() => f.cleanup());

const ids = (rows: { id: number }[]) => rows.map((r) => r.id);

describe("validation on the agent path", () => {
  it("refuses names that are not slugs, over-long titles, too many tags and too many subjects", async () => {
    const slug = await f.fail("save_story_chapter", { action: "create", name: "Chapter 1", title: "One" });
    expect(slug.code).toBe("invalid_input");
    expect(slug.fields?.[0].pointer).toBe("/name");
    const zh = await f.fail("save_story_thread", { action: "create", name: "第一章", title: "x" });
    expect(zh.fields?.[0].pointer).toBe("/name");
    const long = await f.fail("save_story_act", { action: "create", name: "a", title: "x".repeat(121) });
    expect(long.fields?.[0].pointer).toBe("/title");
    const tags = await f.fail("save_story_thread", {
      action: "create",
      name: "t",
      title: "T",
      tags: Array.from({ length: 51 }, (_, i) => `t${i}`),
    });
    expect(tags.fields?.[0].pointer).toBe("/tags");
    const t = await f.ok("save_story_thread", { action: "create", name: "t", title: "T" });
    const subjects = await f.fail("save_story_scene", {
      action: "create",
      threadId: t.id,
      title: "S",
      worldAnchor: { subjectIds: Array.from({ length: 101 }, (_, i) => `s${i}`) },
    });
    expect(subjects.fields?.[0].pointer).toBe("/worldAnchor/subjectIds");
    expect((await f.ok("get_story_tree", {})).totals.threads).toBe(1);
  });

  it("checks required and refused fields per action, and duplicate names", async () => {
    expect((await f.fail("save_story_act", { action: "update", title: "x" })).fields).toContainEqual({
      pointer: "/actId",
      message: "required for action update",
    });
    expect((await f.fail("save_story_scene", { title: "x" })).fields?.[0].pointer).toBe("/action");
    expect((await f.fail("save_story_chapter", { action: "create", title: "x" })).fields?.[0].pointer).toBe(
      "/name",
    );
    await f.ok("save_story_promise", { action: "create", name: "p", title: "P" });
    expect((await f.fail("save_story_promise", { action: "create", name: "p", title: "P2" })).code).toBe(
      "conflict",
    );
    expect((await f.fail("save_story_chapter", { action: "update", chapterId: 77, title: "x" })).code).toBe(
      "not_found",
    );
  });

  it("stops a save_* call in discuss mode with a preview, and runs it once approved", async () => {
    const t = await f.ok("save_story_thread", { action: "create", name: "t", title: "Old title" });
    const r = await f.call(
      "save_story_thread",
      { action: "update", threadId: t.id, title: "New" },
      { mode: "discuss" },
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("approval_required");
    expect(r.error.message).toContain(`thread ${t.id} "Old title"`);
    expect(r.error.message).toContain('title = "New"');
    expect((await f.ok("get_story_thread", { threadId: t.id })).title).toBe("Old title");
    const read = await f.call("get_story_tree", {}, { mode: "plan" });
    expect(read.ok).toBe(true);
  });
  it("an approved save runs only against the row its preview described (a change in between is a conflict)", async () => {
    const t = await f.ok("save_story_thread", { action: "create", name: "t", title: "Old title" });
    const input = { action: "update", threadId: t.id, summary: "From the agent" };
    /** Stop the call in discuss mode and return the basis its preview pins the approval to. */
    const previewBasis = async () => {
      const stopped = await f.call("save_story_thread", input, { mode: "discuss" });
      if (stopped.ok) throw new Error("expected approval_required");
      return (stopped.error.details as { preview: { basis: unknown } }).preview.basis;
    };
    const approve = (basis: unknown) =>
      dispatch(
        { key: "save_story_thread", input },
        {
          registry: f.registry,
          workspace: f.workspace,
          project: f.project,
          mode: "discuss",
          profileKey: null,
          allow: "all",
          approved: true,
          approvedBasis: basis,
        },
      );
    const basis = await previewBasis();
    // The user retitles the thread while the approval waits.
    await f.ok("save_story_thread", { action: "update", threadId: t.id, title: "The user's title" });
    const late = await approve(basis);
    expect(late.ok).toBe(false);
    if (late.ok) return;
    expect(late.error.code).toBe("conflict");
    expect(late.error.message).toContain(`thread ${t.id} "The user's title"`);
    const now = await f.ok("get_story_thread", { threadId: t.id });
    expect(now.title).toBe("The user's title");
    expect(now.summary ?? null).not.toBe("From the agent");

    // Approved against a fresh preview, it runs.
    expect((await approve(await previewBasis())).ok).toBe(true);
    expect((await f.ok("get_story_thread", { threadId: t.id })).summary).toBe("From the agent");
  });
});

describe("ordering", () => {
  it("keeps chapter order contiguous with before/after/position", async () => {
    const mk = async (name: string, order?: unknown) =>
      await f.create("save_story_chapter", { name, title: name, ...(order ? { order } : {}) });
    const a = await mk("a");
    const b = await mk("b");
    const c = await mk("c", { position: 0 });
    const d = await mk("d", { after: a });
    expect(ids((await f.ok("get_story_chapter", {})).rows)).toEqual([c, a, d, b]);
    await f.ok("save_story_chapter", { action: "update", chapterId: c, order: { before: b } });
    const rows = (await f.ok("get_story_chapter", {})).rows;
    expect(ids(rows)).toEqual([a, d, c, b]);
    expect(rows.map((r: { sortOrder: number }) => r.sortOrder)).toEqual([0, 1, 2, 3]);
    const bad = await f.fail("save_story_chapter", {
      action: "update",
      chapterId: a,
      order: { before: 999 },
    });
    expect(bad.fields?.[0].pointer).toBe("/order/before");
    const two = await f.fail("save_story_chapter", {
      action: "update",
      chapterId: a,
      order: { before: b, position: 1 },
    });
    expect(two.code).toBe("invalid_input");
  });

  it("orders scenes in chapters and threads, renumbering the place a scene leaves", async () => {
    const t1 = await f.create("save_story_thread", { name: "t1", title: "T1" });
    const t2 = await f.create("save_story_thread", { name: "t2", title: "T2" });
    const ch = await f.create("save_story_chapter", { name: "c", title: "C" });
    const ch2 = await f.create("save_story_chapter", { name: "c2", title: "C2" });
    const s = async (title: string, extra: Record<string, unknown> = {}) =>
      await f.create("save_story_scene", { threadId: t1, chapterId: ch, title, ...extra });
    const a = await s("a");
    const b = await s("b");
    const c = await s("c", { chapterOrder: { before: a } });
    expect(ids((await f.ok("get_story_chapter", { chapterId: ch })).scenes)).toEqual([c, a, b]);
    await f.ok("save_story_scene", { action: "update", sceneId: c, threadId: t2, chapterId: ch2 });
    expect(ids((await f.ok("get_story_chapter", { chapterId: ch })).scenes)).toEqual([a, b]);
    const thread = await f.ok("get_story_thread", { threadId: t1 });
    expect(ids(thread.scenes)).toEqual([a, b]);
    const ctx = await f.ok("get_story_scene_context", { sceneId: b });
    expect(ctx.scene).toMatchObject({ threadSortOrder: 1, chapterSortOrder: 1 });
    expect(ids(ctx.previousInThread)).toEqual([a]);
    await f.ok("save_story_scene", { action: "update", sceneId: b, threadOrder: { position: 0 } });
    expect(ids((await f.ok("get_story_thread", { threadId: t1 })).scenes)).toEqual([b, a]);
    await f.ok("save_story_scene", { action: "update", sceneId: b, chapterId: null });
    expect((await f.ok("get_story_scene_context", { sceneId: b })).scene.chapterSortOrder).toBeNull();
  });
});

describe("list modes", () => {
  it("every read tool lists when the id is omitted, with filters and paging", async () => {
    const act = await f.create("save_story_act", { name: "act-1", title: "Act" });
    const t1 = await f.create("save_story_thread", { name: "t1", title: "T1", tags: ["war"], isMain: true });
    const t2 = await f.create("save_story_thread", { name: "t2", title: "T2", status: "active" });
    const t3 = await f.create("save_story_thread", { name: "t3", title: "T3" });
    await f.ok("save_story_thread", { action: "archive", threadId: t3 });
    const c1 = await f.create("save_story_chapter", { name: "c1", title: "C1", actId: act });
    const c2 = await f.create("save_story_chapter", { name: "c2", title: "C2" });
    const s1 = await f.create("save_story_scene", {
      threadId: t1,
      chapterId: c1,
      title: "S1",
      worldAnchor: { startInstant: 10, endInstant: 20, subjectIds: ["x"] },
    });
    const s2 = await f.create("save_story_scene", {
      threadId: t2,
      chapterId: c2,
      title: "S2",
      status: "written",
    });
    const s3 = await f.create("save_story_scene", { threadId: t1, title: "S3" });

    const threads = await f.ok("get_story_thread", {});
    expect(ids(threads.rows)).toEqual([t1, t2]);
    expect(ids((await f.ok("get_story_thread", { includeArchived: true })).rows)).toEqual([t1, t2, t3]);
    expect(ids((await f.ok("get_story_thread", { tag: "war" })).rows)).toEqual([t1]);
    expect(ids((await f.ok("get_story_thread", { status: "active" })).rows)).toEqual([t2]);
    expect(ids((await f.ok("get_story_thread", { isMain: true })).rows)).toEqual([t1]);
    const tp = await f.ok("get_story_thread", { limit: 1 });
    expect(tp.nextCursor).toBe("1");
    expect(ids((await f.ok("get_story_thread", { limit: 1, cursor: tp.nextCursor })).rows)).toEqual([t2]);

    expect(ids((await f.ok("get_story_scene_context", {})).rows)).toEqual([s1, s2, s3]);
    expect(ids((await f.ok("get_story_scene_context", { threadId: t1 })).rows)).toEqual([s1, s3]);
    expect(ids((await f.ok("get_story_scene_context", { status: "written" })).rows)).toEqual([s2]);
    expect(ids((await f.ok("get_story_scene_context", { chapterId: c2 })).rows)).toEqual([s2]);
    const sp = await f.ok("get_story_scene_context", { limit: 2 });
    expect(ids((await f.ok("get_story_scene_context", { limit: 2, cursor: sp.nextCursor })).rows)).toEqual([
      s3,
    ]);

    expect(ids((await f.ok("get_scene_world_context", { anchored: true })).rows)).toEqual([s1]);
    const wp = await f.ok("get_scene_world_context", { anchored: false, limit: 1 });
    expect(ids(wp.rows)).toEqual([s2]);
    expect(
      ids((await f.ok("get_scene_world_context", { anchored: false, limit: 1, cursor: wp.nextCursor })).rows),
    ).toEqual([s3]);
    expect(ids((await f.ok("get_scene_world_context", { chapterId: c1 })).rows)).toEqual([s1]);

    expect(ids((await f.ok("get_story_chapter", {})).rows)).toEqual([c1, c2]);
    expect(ids((await f.ok("get_story_chapter", { actId: act })).rows)).toEqual([c1]);
    const cp = await f.ok("get_story_chapter", { limit: 1 });
    expect(ids((await f.ok("get_story_chapter", { limit: 1, cursor: cp.nextCursor })).rows)).toEqual([c2]);

    const briefs = await f.ok("get_chapter_writer_brief", {});
    expect(briefs.rows.map((r: { unanchoredScenes: number }) => r.unanchoredScenes)).toEqual([0, 1]);
    expect(ids((await f.ok("get_chapter_writer_brief", { actId: act })).rows)).toEqual([c1]);
    const bp = await f.ok("get_chapter_writer_brief", { limit: 1 });
    expect(ids((await f.ok("get_chapter_writer_brief", { limit: 1, cursor: bp.nextCursor })).rows)).toEqual([
      c2,
    ]);

    const text = await f.call("get_story_thread", { limit: 1 });
    expect(text.ok && text.text).toContain('cursor "1"');
    expect((await f.fail("get_story_thread", { cursor: "abc" })).fields?.[0].pointer).toBe("/cursor");
  });

  it("get_story_tree is compact by default and adds texts with detail", async () => {
    const act = await f.create("save_story_act", { name: "a", title: "A", summary: "act summary" });
    const ch = await f.create("save_story_chapter", {
      name: "c",
      title: "C",
      actId: act,
      brief: { goal: "win" },
    });
    const t = await f.create("save_story_thread", { name: "t", title: "T", summary: "thread summary" });
    await f.ok("save_story_scene", { action: "create", threadId: t, chapterId: ch, title: "S" });
    await f.ok("save_story_scene", {
      action: "create",
      threadId: t,
      chapterId: ch,
      title: "Gone",
      status: "archived",
    });
    const compact = await f.call("get_story_tree", {});
    expect(compact.ok && compact.text).not.toContain("win");
    expect(compact.ok && compact.text).not.toContain("thread summary");
    const tree = compact.ok ? (compact.details as any) : null;
    expect(tree.acts[0].chapters[0]).toEqual({ id: ch, name: "c", title: "C", status: "active", scenes: 1 });
    expect(tree.totals.scenes).toBe(1);
    const detail = await f.ok("get_story_tree", { detail: true });
    expect(detail.acts[0].chapters[0].brief.goal).toBe("win");
    expect(detail.ungroupedThreads[0].sceneList.map((s: { title: string }) => s.title)).toEqual(["S"]);
  });
});

describe("archive", () => {
  it("takes nothing but the id, and an archived act takes its chapters out of the tree", async () => {
    const act = await f.create("save_story_act", { name: "vol-1", title: "Volume 1" });
    const inside = await f.create("save_story_chapter", { name: "c1", title: "C1", actId: act });
    const loose = await f.create("save_story_chapter", { name: "c2", title: "C2" });
    const t = await f.create("save_story_thread", { name: "t", title: "T" });
    const clash = await f.fail("save_story_thread", { action: "archive", threadId: t, status: "active" });
    expect(clash.fields).toEqual([{ pointer: "/status", message: "not accepted by action archive" }]);
    expect((await f.ok("save_story_act", { action: "archive", actId: act })).status).toBe("archived");
    const tree = await f.ok("get_story_tree", {});
    expect(tree.acts).toEqual([]);
    expect(ids(tree.ungroupedChapters)).toEqual([loose]);
    expect(tree.totals.chapters).toBe(1);
    const all = await f.ok("get_story_tree", { includeArchived: true });
    expect(ids(all.acts[0].chapters)).toEqual([inside]);
    await f.ok("save_story_chapter", { action: "archive", chapterId: loose });
    expect((await f.ok("get_story_tree", {})).ungroupedChapters).toEqual([]);
    expect(ids((await f.ok("get_story_chapter", { status: "archived" })).rows)).toEqual([loose]);
    await f.ok("save_story_chapter", { action: "update", chapterId: loose, status: "active" });
    expect(ids((await f.ok("get_story_tree", {})).ungroupedChapters)).toEqual([loose]);
  });
});

describe("scene refs and anchors", () => {
  it("stores refs in canonical form and refuses unknown schemes, escapes, missing targets and duplicates", async () => {
    const t = await f.create("save_story_thread", { name: "north-road", title: "North road" });
    const other = await f.create("save_story_scene", { threadId: t, title: "Other" });
    const refs = [
      { relation: "continues", target: "thread://north-road" },
      { relation: "follows", target: `scene://${other}`, visibility: "reader" },
      { relation: "defines", target: "./lorebook/keep.md", note: "layout" },
    ];
    const s = await f.ok("save_story_scene", { action: "create", threadId: t, title: "S", refs });
    expect(s.refs.map((r: { target: string }) => r.target)).toEqual([
      `thread://${t}`,
      `scene://${other}`,
      "lorebook/keep.md",
    ]);
    expect(s.refs[1]).toMatchObject({ targetKind: "scene", visibility: "reader" });
    const refused = async (target: string) =>
      await f.fail("save_story_scene", {
        action: "update",
        sceneId: s.id,
        refs: [{ relation: "r", target }],
      });
    for (const target of ["pending://idea/x", "https://example.com/a", "../outside.md", "/etc/passwd"]) {
      const e = await refused(target);
      expect(e.code, target).toBe("invalid_input");
      expect(e.fields?.[0].pointer, target).toBe("/refs/0/target");
    }
    expect((await refused("thread://no-such-thread")).code).toBe("not_found");
    expect((await refused("scene://999")).code).toBe("not_found");
    const dup = await f.fail("save_story_scene", {
      action: "update",
      sceneId: s.id,
      refs: [
        { relation: "defines", target: "lorebook/keep.md" },
        { relation: "defines", target: "./lorebook/keep.md" },
      ],
    });
    expect(dup.fields?.[0].pointer).toBe("/refs/1");
    const kept = await f.ok("get_story_scene_context", { sceneId: s.id });
    expect(kept.scene.refs).toHaveLength(3);
  });

  it("takes an instant even when the calendar string beside it is null, and null alone clears", async () => {
    const t = await f.create("save_story_thread", { name: "t", title: "T" });
    const s = await f.ok("save_story_scene", {
      action: "create",
      threadId: t,
      title: "S",
      worldAnchor: { startTime: null, startInstant: 5, endInstant: 9, endTime: null },
    });
    expect(s.worldAnchor).toMatchObject({ startInstant: 5, endInstant: 9 });
    const cleared = await f.ok("save_story_scene", {
      action: "update",
      sceneId: s.id,
      worldAnchor: { startTime: null },
    });
    expect(cleared.worldAnchor).toMatchObject({ startInstant: null, endInstant: 9 });
  });
});
