import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NbError } from "../../src/core/errors.js";
import { plotRowChanges, revertPlotChange } from "../../src/plot/change-log.js";
import { plotDb } from "../../src/plot/db.js";
import { planCall, runPlanned } from "../../src/tools/dispatch.js";
import { plotFixture } from "../plot/tool-fixture.js";

let f: ReturnType<typeof plotFixture>;
beforeEach(() => {
  f = plotFixture();
});
afterEach(() => f.cleanup());

/** Run a plot tool as the pipeline runs a recorded write: its grant carries the change id. */
async function recorded<T = any>(changeId: string, key: string, input: unknown): Promise<T> {
  const dctx = {
    registry: f.registry,
    workspace: f.workspace,
    project: f.project,
    mode: "normal" as const,
    profileKey: "writer",
    allow: "all" as const,
  };
  const planned = await planCall({ key, input }, dctx);
  if (planned.kind !== "run") throw new Error(`${key} did not run: ${planned.kind}`);
  const r = await runPlanned({ ...planned, grant: { ...planned.grant, changeId } }, dctx);
  if (!r.ok) throw new Error(`${key} failed: ${r.error.code} ${r.error.message}`);
  return r.details as T;
}

function thrown(fn: () => unknown): NbError {
  try {
    fn();
  } catch (e) {
    return e as NbError;
  }
  throw new Error("expected a throw");
}

const row = (table: string, id: number) =>
  plotDb(f.project).prepare(`SELECT * FROM ${table} WHERE id = ?`).get(id) as
    | Record<string, unknown>
    | undefined;

describe("the plot row log", () => {
  it("logs each touched row of an agent's save with a field diff, and a revert restores it", async () => {
    const ch = await f.create("save_story_chapter", {
      name: "c",
      title: "Old title",
      brief: { goal: "old goal" },
    });
    const before = row("story_chapter", ch);
    await recorded("c1", "save_story_chapter", {
      action: "update",
      chapterId: ch,
      title: "New",
      brief: { goal: null },
    });
    const diff = plotRowChanges(plotDb(f.project), "c1");
    expect(diff).toHaveLength(1);
    expect(diff[0]).toMatchObject({ table: "story_chapter", key: [ch], name: `chapter ${ch}`, op: "update" });
    const fields = Object.fromEntries(diff[0].fields.map((x) => [x.field, [x.before, x.after]]));
    expect(fields.title).toEqual(["Old title", "New"]);
    expect(fields.brief_goal).toEqual(["old goal", null]);
    expect(fields.name).toBeUndefined();

    const undone = revertPlotChange(plotDb(f.project), "c1", "c2");
    expect(row("story_chapter", ch)).toEqual(before);
    expect(undone.map((d) => d.op)).toEqual(["update"]);
    // The revert is a change of its own: reverting it brings the agent's version back.
    revertPlotChange(plotDb(f.project), "c2", "c3");
    expect(row("story_chapter", ch)).toMatchObject({ title: "New", brief_goal: null });
  });

  it("logs the rows a save renumbers or links, and reverting a create removes them all", async () => {
    const t = await f.create("save_story_thread", { name: "t", title: "T" });
    const a = await f.create("save_story_scene", { threadId: t, title: "A" });
    const created = await recorded("c1", "save_story_scene", {
      action: "create",
      threadId: t,
      title: "B",
      threadOrder: { before: a },
      worldAnchor: { subjectIds: ["ana"] },
    });
    const diff = plotRowChanges(plotDb(f.project), "c1");
    expect(diff.map((d) => `${d.op} ${d.name}`)).toEqual(
      expect.arrayContaining([
        `insert scene ${created.id}`,
        `update scene ${a}`,
        `insert scene subject [${created.id},"ana"]`,
      ]),
    );
    revertPlotChange(plotDb(f.project), "c1", "c2");
    expect(row("story_scene", created.id)).toBeUndefined();
    expect(row("story_scene", a)).toMatchObject({ thread_sort_order: 0 });
    expect(plotDb(f.project).prepare("SELECT count(*) AS n FROM story_scene_subject").get()).toEqual({
      n: 0,
    });
  });

  it("refuses a revert that would leave a scene in a chapter that is gone, changing nothing", async () => {
    const t = await f.create("save_story_thread", { name: "t", title: "T" });
    const s = await f.create("save_story_scene", { threadId: t, title: "S" });
    const made = await recorded("c1", "save_story_chapter", { action: "create", name: "c", title: "C" });
    await f.ok("save_story_scene", { action: "update", sceneId: s, chapterId: made.id });
    const chapter = row("story_chapter", made.id);
    const e = thrown(() => revertPlotChange(plotDb(f.project), "c1", "c2"));
    expect(e.code).toBe("conflict");
    expect(e.message).toContain(`scene ${s} would point (chapter_id) at chapter ${made.id}`);
    expect(row("story_chapter", made.id)).toEqual(chapter);
    expect(row("story_scene", s)).toMatchObject({ chapter_id: made.id });
    expect(plotRowChanges(plotDb(f.project), "c2")).toEqual([]);
  });

  it("refuses, with both versions, a revert of a row changed since", async () => {
    const ch = await f.create("save_story_chapter", { name: "c", title: "One" });
    await recorded("c1", "save_story_chapter", { action: "update", chapterId: ch, title: "Two" });
    await f.ok("save_story_chapter", { action: "update", chapterId: ch, title: "Three" });
    const e = thrown(() => revertPlotChange(plotDb(f.project), "c1", "c2"));
    expect(e.code).toBe("conflict");
    const c = (e.details as { conflicts: { expected: { title: string }; current: { title: string } }[] })
      .conflicts[0];
    expect([c.expected.title, c.current.title]).toEqual(["Two", "Three"]);
    expect(row("story_chapter", ch)).toMatchObject({ title: "Three" });
  });

  it("an unknown change id is not_found; a write that fails logs nothing", async () => {
    expect(thrown(() => revertPlotChange(plotDb(f.project), "nope", "c2")).code).toBe("not_found");
    await expect(
      recorded("c1", "save_story_scene", { action: "create", threadId: 999, title: "X" }),
    ).rejects.toThrow(/not_found/);
    expect(plotRowChanges(plotDb(f.project), "c1")).toEqual([]);
  });
});
