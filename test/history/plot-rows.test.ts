import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NbError } from "../../src/core/errors.js";
import { plotRowChanges, revertPlotChange } from "../../src/plot/change-log.js";
import { plotDb } from "../../src/plot/db.js";
import { dispatch } from "../../src/tools/dispatch.js";
import { plotFixture } from "../plot/tool-fixture.js";

let f: ReturnType<typeof plotFixture>;
beforeEach(() => {
  f = plotFixture();
});
afterEach(() => f.cleanup());

/** Run a plot tool as an agent's call through the pipeline; returns its details and its change id. */
async function recorded<T = any>(key: string, input: unknown): Promise<{ details: T; id: string }> {
  const ids: string[] = [];
  const r = await dispatch(
    { key, input },
    {
      registry: f.registry,
      workspace: f.workspace,
      project: f.project,
      mode: "normal",
      profileKey: "writer",
      allow: "all",
      onChange: (c) => ids.push(c.id),
    },
  );
  if (!r.ok) throw new Error(`${key} failed: ${r.error.code} ${r.error.message}`);
  expect(ids).toHaveLength(1);
  return { details: r.details as T, id: ids[0] };
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
    const { id } = await recorded("save_story_chapter", {
      action: "update",
      chapterId: ch,
      title: "New",
      brief: { goal: null },
    });
    const diff = plotRowChanges(plotDb(f.project), id);
    expect(diff).toHaveLength(1);
    expect(diff[0]).toMatchObject({ table: "story_chapter", key: [ch], name: `chapter ${ch}`, op: "update" });
    const fields = Object.fromEntries(diff[0].fields.map((x) => [x.field, [x.before, x.after]]));
    expect(fields.title).toEqual(["Old title", "New"]);
    expect(fields.brief_goal).toEqual(["old goal", null]);
    expect(fields.name).toBeUndefined();

    const undone = revertPlotChange(plotDb(f.project), id, "r1");
    expect(row("story_chapter", ch)).toEqual(before);
    expect(undone.map((d) => d.op)).toEqual(["update"]);
    // The revert is a change of its own: reverting it brings the agent's version back.
    revertPlotChange(plotDb(f.project), "r1", "r2");
    expect(row("story_chapter", ch)).toMatchObject({ title: "New", brief_goal: null });
  });

  it("logs the rows a save renumbers or links, and reverting a create removes them all", async () => {
    const t = await f.create("save_story_thread", { name: "t", title: "T" });
    const a = await f.create("save_story_scene", { threadId: t, title: "A" });
    const { details, id } = await recorded<{ id: number }>("save_story_scene", {
      action: "create",
      threadId: t,
      title: "B",
      threadOrder: { before: a },
      worldAnchor: { subjectIds: ["ana"] },
    });
    const diff = plotRowChanges(plotDb(f.project), id);
    expect(diff.map((d) => `${d.op} ${d.name}`)).toEqual(
      expect.arrayContaining([
        `insert scene ${details.id}`,
        `update scene ${a}`,
        `insert scene subject [${details.id},"ana"]`,
      ]),
    );
    revertPlotChange(plotDb(f.project), id, "r1");
    expect(row("story_scene", details.id)).toBeUndefined();
    expect(row("story_scene", a)).toMatchObject({ thread_sort_order: 0 });
    expect(plotDb(f.project).prepare("SELECT count(*) AS n FROM story_scene_subject").get()).toEqual({
      n: 0,
    });
  });

  it("refuses a revert that would leave a scene in a chapter that is gone, changing nothing", async () => {
    const t = await f.create("save_story_thread", { name: "t", title: "T" });
    const s = await f.create("save_story_scene", { threadId: t, title: "S" });
    const made = await recorded<{ id: number }>("save_story_chapter", {
      action: "create",
      name: "c",
      title: "C",
    });
    await f.ok("save_story_scene", { action: "update", sceneId: s, chapterId: made.details.id });
    const chapter = row("story_chapter", made.details.id);
    const e = thrown(() => revertPlotChange(plotDb(f.project), made.id, "r1"));
    expect(e.code).toBe("conflict");
    expect(e.message).toContain(`scene ${s} would point (chapter_id) at chapter ${made.details.id}`);
    expect(row("story_chapter", made.details.id)).toEqual(chapter);
    expect(row("story_scene", s)).toMatchObject({ chapter_id: made.details.id });
    expect(plotRowChanges(plotDb(f.project), "r1")).toEqual([]);
  });

  it("refuses, with both versions, a revert of a row changed since", async () => {
    const ch = await f.create("save_story_chapter", { name: "c", title: "One" });
    const { id } = await recorded("save_story_chapter", { action: "update", chapterId: ch, title: "Two" });
    await f.ok("save_story_chapter", { action: "update", chapterId: ch, title: "Three" });
    const e = thrown(() => revertPlotChange(plotDb(f.project), id, "r1"));
    expect(e.code).toBe("conflict");
    const c = (e.details as { conflicts: { expected: { title: string }; current: { title: string } }[] })
      .conflicts[0];
    expect([c.expected.title, c.current.title]).toEqual(["Two", "Three"]);
    expect(row("story_chapter", ch)).toMatchObject({ title: "Three" });
  });

  it("an unknown change id is not_found", () => {
    expect(thrown(() => revertPlotChange(plotDb(f.project), "nope", "r1")).code).toBe("not_found");
  });
});
