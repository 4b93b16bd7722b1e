import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NbError } from "../../src/core/errors.js";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { revertWorldChange, worldRowChanges } from "../../src/world/change-log.js";
import { openWorld } from "../../src/world/world.js";
import { makeTestBed, type TestBed } from "../helpers.js";
import { recordedCall } from "./recorded.js";

let bed: TestBed;
beforeAll(() => {
  bed = makeTestBed("novel");
});
afterAll(() => bed.cleanup());

const world = () => openWorld(bed.project);
const agentWorld = (code: string) =>
  recordedCall(
    {
      registry: createToolRegistry(),
      workspace: bed.ws,
      project: bed.project,
      mode: "normal",
      profileKey: "writer",
      allow: new Map([["execute_world", { access: "readwrite" }]]),
    },
    "execute_world",
    { code },
  );

function thrown(fn: () => unknown): NbError {
  try {
    fn();
  } catch (e) {
    return e as NbError;
  }
  throw new Error("expected a throw");
}

describe("the World Engine row log", () => {
  it("logs a written slice as a patch list, and a revert takes the slice and its state away", async () => {
    const { id, text: sliceId } =
      await agentWorld(`return world.slice.write({ time: 100, title: "arrival", patches: [
      { subjectId: "ana", type: "character", name: "Ana", path: "/hp", op: "replace", value: 90 },
      { subjectId: "ana", path: "/inventory", op: "append", value: "sword" }]}).sliceId;`);
    const change = worldRowChanges(world().db, id);
    expect(change.subjects).toMatchObject([{ op: "insert", after: { id: "ana", type: "character" } }]);
    expect(change.slices).toHaveLength(1);
    expect(change.slices[0]).toMatchObject({ sliceId, slice: { op: "insert", after: { title: "arrival" } } });
    const patches = change.slices[0].patches.map((p) => [p.op, p.after?.path, p.after?.value]);
    expect(patches).toEqual(
      expect.arrayContaining([
        ["insert", "/hp", 90],
        ["insert", "/inventory", "sword"],
      ]),
    );
    expect(patches.every(([op]) => op === "insert")).toBe(true);

    revertWorldChange(world(), id, "rw-1");
    expect(
      world()
        .slice.list({})
        .map((s) => s.id),
    ).not.toContain(sliceId);
    expect(world().subject.get("ana")).toBeNull();
    // Reverting the revert brings the slice and Ana's state back.
    revertWorldChange(world(), "rw-1", "rw-2");
    expect(world().subject.get("ana")).toMatchObject({ hp: 90, inventory: ["sword"] });
  });

  it("a revert of an edit restores the earlier state, re-derived; a later edit makes it a conflict", async () => {
    const first = await agentWorld(`return world.slice.write({ time: 200, title: "wound", patches: [
      { subjectId: "bo", type: "character", name: "Bo", path: "/hp", op: "replace", value: 50 }]}).sliceId;`);
    const edit = await agentWorld(`const s = world.slice.get(${JSON.stringify(first.text)});
      world.slice.editPatches(s.id, [{ patchId: s.patches.filter((p) => p.path === '/hp').pop().patchId, set: { value: 10 } }]); return "ok";`);
    expect(world().subject.get("bo")).toMatchObject({ hp: 10 });
    const shown = worldRowChanges(world().db, edit.id).slices[0].patches.find((p) => p.op === "update");
    expect([shown?.op, shown?.before?.value, shown?.after?.value]).toEqual(["update", 50, 10]);
    revertWorldChange(world(), edit.id, "rw-3");
    expect(world().subject.get("bo")).toMatchObject({ hp: 50 });

    await agentWorld(`const s = world.slice.get(${JSON.stringify(first.text)});
      world.slice.editPatches(s.id, [{ patchId: s.patches.filter((p) => p.path === '/hp').pop().patchId, set: { value: 30 } }]); return "ok";`);
    const e = thrown(() => revertWorldChange(world(), "rw-3", "rw-4"));
    expect(e.code).toBe("conflict");
    expect(e.message).toMatch(/^Cannot revert change rw-3: patch .+ changed since; nothing was changed/);
    expect(world().subject.get("bo")).toMatchObject({ hp: 30 });
  });

  it("an unknown change id is not_found", () => {
    expect(thrown(() => revertWorldChange(world(), "no-such-change", "rw-9")).code).toBe("not_found");
  });
});
