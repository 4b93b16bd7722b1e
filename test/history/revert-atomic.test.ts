// A revert of several changes is all or nothing: every part (files merged in memory, plot rows,
// world slices) is planned first, and a part that cannot be taken back refuses the whole revert
// with `conflict` naming that part, leaving every file and row as it was.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NbError } from "../../src/core/errors.js";
import { History } from "../../src/history/history.js";
import { revertChanges } from "../../src/history/revert.js";
import { plotDb } from "../../src/plot/db.js";
import { createToolRegistry } from "../../src/tools/builtin.js";
import type { Allowlist } from "../../src/tools/dispatch.js";
import { openWorld } from "../../src/world/world.js";
import { makeTestBed, type TestBed } from "../helpers.js";
import { recordedCall } from "./recorded.js";

let bed: TestBed;
beforeEach(() => {
  bed = makeTestBed("novel");
});
afterEach(() => bed.cleanup());

const agent = (key: string, input: unknown, allow: Allowlist = "all") =>
  recordedCall(
    {
      registry: createToolRegistry(),
      workspace: bed.ws,
      project: bed.project,
      mode: "normal",
      profileKey: "writer",
      allow,
    },
    key,
    input,
  );

async function rejected(p: Promise<unknown>): Promise<NbError> {
  try {
    await p;
  } catch (e) {
    return e as NbError;
  }
  throw new Error("expected a rejection");
}

/** Three changes: a chapter row (oldest), a file, a world slice (newest). */
async function threeParts() {
  const chapter = await agent("save_story_chapter", { action: "create", name: "storm", title: "The storm" });
  const file = await agent("write", { path: "notes/storm.md", content: "The storm breaks.\n" });
  const slice = await agent(
    "execute_world",
    {
      code: `return world.slice.write({ time: 5000, title: "the storm breaks", patches: [
        { subjectId: "wren", type: "character", name: "Wren", path: "/hp", op: "replace", value: 40 }]}).sliceId;`,
    },
    new Map([["execute_world", { access: "readwrite" }]]),
  );
  const history = History.of(bed.project);
  const changes = [chapter.id, file.id, slice.id].map((id) => history.index.get(id));
  return { history, changes, ids: { chapter: chapter.id, file: file.id, slice: slice.id } };
}

const chapterRow = () =>
  plotDb(bed.project).prepare("SELECT id, title FROM story_chapter WHERE name = 'storm'").get() as
    | { id: number; title: string }
    | undefined;
const slices = () =>
  openWorld(bed.project).db.prepare("SELECT COUNT(*) AS n FROM slices").get() as { n: number };
const note = () => join(bed.project.root, "notes/storm.md");

describe("a revert of several changes", () => {
  it("whose last part conflicts writes nothing and names that part", async () => {
    const { history, changes, ids } = await threeParts();
    // The chapter row changed since, outside any recorded change: its revert must be refused.
    plotDb(bed.project)
      .prepare("UPDATE story_chapter SET title = 'Renamed by hand' WHERE name = 'storm'")
      .run();
    const slicesBefore = slices().n;
    const listed = history.index.list().length;

    const e = await rejected(revertChanges(history, changes, {}));
    expect(e.code).toBe("conflict");
    expect(e.message).toContain(`Cannot revert change ${ids.chapter}`);
    expect(e.message).toMatch(/nothing was changed/);
    expect((e.details as { change: string }).change).toBe(ids.chapter);

    // Nothing was written: the file, the world slice and the chapter row are as they were.
    expect(readFileSync(note(), "utf8")).toBe("The storm breaks.\n");
    expect(slices().n).toBe(slicesBefore);
    expect(chapterRow()?.title).toBe("Renamed by hand");
    expect(history.index.list().length).toBe(listed);
  });

  it("with no conflict takes every part back as one change, which can itself be reverted", async () => {
    const { history, changes } = await threeParts();
    const slicesBefore = slices().n;
    const made = await revertChanges(history, changes, {});
    expect(made?.reverts).toHaveLength(3);
    expect(existsSync(note())).toBe(false);
    expect(chapterRow()).toBeUndefined();
    expect(slices().n).toBe(slicesBefore - 1);

    await revertChanges(history, [made!], {});
    expect(readFileSync(note(), "utf8")).toBe("The storm breaks.\n");
    expect(chapterRow()?.title).toBe("The storm");
    expect(slices().n).toBe(slicesBefore);
  });
});
