import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { errorOf } from "../../test/errors.js";
import { tempWorld } from "../../test/world/fixture.js";
import type { PatchInput } from "./api.js";
import { ISSUE_CATALOG } from "./issues.js";
import { World } from "./world.js";

let t: ReturnType<typeof tempWorld>;
let w: World;
beforeEach(() => {
  t = tempWorld();
  w = t.world;
});
afterEach(() => t.cleanup());

const hero = (patches: Array<Omit<PatchInput, "subjectId">>): PatchInput[] =>
  patches.map((p, i) => ({ subjectId: "hero", ...(i === 0 ? { type: "character" } : {}), ...p }));

describe("ops and reduce", () => {
  it("applies defaults before the first write's patches (1)", () => {
    w.slice.write({ time: 1, patches: hero([{ path: "/hp", op: "increment", value: -20 }]) });
    expect(w.subject.get("hero")).toMatchObject({ hp: 80, inventory: [], skills: [], stats: { str: 10 } });
    expect(w.subject.info("hero")).toEqual({ id: "hero", type: "character", name: "" });
  });

  it("creates intermediate objects, replaces and appends by index, rejects an index past the end (2)", () => {
    w.slice.write({ time: 1, patches: hero([{ path: "/notes/a/b", op: "replace", value: 1 }]) });
    expect(w.subject.get("hero")?.notes).toEqual({ a: { b: 1 } });
    w.slice.write({
      time: 2,
      patches: [{ subjectId: "hero", path: "/items", op: "replace", value: ["a", "b", "c"] }],
    });
    w.slice.write({ time: 3, patches: [{ subjectId: "hero", path: "/items/1", op: "replace", value: "x" }] });
    w.slice.write({ time: 4, patches: [{ subjectId: "hero", path: "/items/3", op: "replace", value: "d" }] });
    expect(w.subject.get("hero")?.items).toEqual(["a", "x", "c", "d"]);
    const e = errorOf(() =>
      w.slice.write({
        time: 5,
        patches: [{ subjectId: "hero", path: "/items/9", op: "replace", value: "z" }],
      }),
    );
    expect(e.code).toBe("invalid_input");
    expect(e.fields?.[0].pointer).toBe("/patches/0");
    expect(e.message).toContain("E3");
    expect(w.slice.list()).toHaveLength(4);
  });

  it("rejects an increment without a numeric base at write time, storing nothing (3)", () => {
    w.slice.write({ time: 1, patches: hero([{ path: "/name", op: "replace", value: "Aya" }]) });
    const e = errorOf(() =>
      w.slice.write({ time: 2, patches: [{ subjectId: "hero", path: "/gold", op: "increment", value: 5 }] }),
    );
    expect(e.code).toBe("invalid_input");
    expect(e.message).toMatch(/E1.*no numeric base/);
    expect(e.details).toMatchObject({ label: "E1", code: "broken-relative" });
    w.slice.write({
      time: 2,
      patches: [{ subjectId: "hero", path: "/title", op: "replace", value: "knight" }],
    });
    const e2 = errorOf(() =>
      w.slice.write({ time: 3, patches: [{ subjectId: "hero", path: "/title", op: "increment", value: 1 }] }),
    );
    expect(e2.message).toMatch(/base is not a number/);
    expect(w.slice.list().map((s) => s.instant)).toEqual([1, 2]);
  });

  it("remove: missing path is a no-op, index splices, by value on a set only (4)", () => {
    w.slice.write({
      time: 1,
      patches: hero([
        { path: "/items", op: "replace", value: ["a", "b", "c"] },
        { path: "/inventory", op: "replace", value: [{ k: 1, j: 2 }].map(() => "sword").concat(["coin"]) },
      ]),
    });
    w.slice.write({
      time: 2,
      patches: [
        { subjectId: "hero", path: "/nonexistent", op: "remove" },
        { subjectId: "hero", path: "/items/1", op: "remove" },
        { subjectId: "hero", path: "/inventory", op: "remove", value: "sword" },
      ],
    });
    expect(w.subject.get("hero")).toMatchObject({ items: ["a", "c"], inventory: ["coin"] });
    w.slice.write({
      time: 3,
      patches: [{ subjectId: "hero", path: "/inventory", op: "remove", value: "sword" }],
    });
    expect(w.subject.get("hero")?.inventory).toEqual(["coin"]);
    const e = errorOf(() =>
      w.slice.write({ time: 4, patches: [{ subjectId: "hero", path: "/items", op: "remove", value: "a" }] }),
    );
    expect(e.fields?.[0].pointer).toBe("/patches/0/value");
    expect(e.message).toContain("only on a set");
  });

  it("remove by value compares deeply, ignoring key order", () => {
    const schema = `types:\n  c:\n    attrs:\n      bag: { type: set, of: { type: record, of: int } }\n`;
    t.setSchema(schema);
    w.slice.write({
      time: 1,
      patches: [{ subjectId: "x", type: "c", path: "/bag", op: "append", value: { a: 1, b: 2 } }],
    });
    w.slice.write({
      time: 2,
      patches: [{ subjectId: "x", path: "/bag", op: "remove", value: { b: 2, a: 1 } }],
    });
    expect(w.subject.get("x")?.bag).toEqual([]);
  });

  it("append to a set skips duplicates, also within one slice (5)", () => {
    w.slice.write({
      time: 1,
      patches: hero([
        { path: "/inventory", op: "append", value: "sword" },
        { path: "/inventory", op: "append", value: "sword" },
        { path: "/skills", op: "append", value: "run" },
        { path: "/skills", op: "append", value: "run" },
      ]),
    });
    expect(w.subject.get("hero")).toMatchObject({ inventory: ["sword"], skills: ["run", "run"] });
  });

  it("rejects a path through a reference, allows replacing the reference itself (6)", () => {
    w.slice.write({
      time: 1,
      patches: [{ subjectId: "town", type: "location", path: "/name", op: "replace", value: "Town" }],
    });
    w.slice.write({
      time: 2,
      patches: hero([{ path: "/location", op: "replace", value: "subject://town" }]),
    });
    const e = errorOf(() =>
      w.slice.write({
        time: 3,
        patches: [{ subjectId: "hero", path: "/location/name", op: "replace", value: "X" }],
      }),
    );
    expect(e.code).toBe("invalid_input");
    w.slice.write({
      time: 3,
      patches: [{ subjectId: "hero", path: "/location", op: "replace", value: null }],
    });
    expect(w.subject.get("hero")?.location).toBeNull();
  });

  it("reaching through an undeclared reference value is E4", () => {
    w.slice.write({
      time: 1,
      patches: hero([{ path: "/friend", op: "replace", value: "subject://someone" }]),
    });
    const e = errorOf(() =>
      w.slice.write({
        time: 2,
        patches: [{ subjectId: "hero", path: "/friend/age", op: "replace", value: 3 }],
      }),
    );
    expect(e.message).toContain("E4");
  });

  it("decodes JSON Pointer escapes and non-ASCII segments (7)", () => {
    w.slice.write({
      time: 1,
      patches: hero([
        { path: "/a~1b/c~0d", op: "replace", value: 1 },
        { path: "/memory/师门", op: "replace", value: "入门那天下雨" },
      ]),
    });
    const s = w.subject.get("hero");
    expect(s?.["a/b"]).toEqual({ "c~d": 1 });
    expect(s?.memory).toEqual({ 师门: "入门那天下雨" });
  });

  it("the cutoff is inclusive (8)", () => {
    w.slice.write({ time: 10, patches: hero([{ path: "/hp", op: "replace", value: 50 }]) });
    expect(w.subject.get("hero", { at: 10 })?.hp).toBe(50);
    expect(w.subject.get("hero", { at: 9 })).toEqual({});
  });

  it("deleting the slice holding a base reports E1 on the later increment (9)", () => {
    w.slice.write({ time: 1, patches: hero([{ path: "/name", op: "replace", value: "A" }]) });
    const base = w.slice.write({
      time: 2,
      patches: [{ subjectId: "hero", path: "/gold", op: "replace", value: 10 }],
    });
    const inc = w.slice.write({
      time: 3,
      patches: [{ subjectId: "hero", path: "/gold", op: "increment", value: 5 }],
    });
    expect(w.subject.get("hero")?.gold).toBe(15);
    const r = w.slice.delete(base.sliceId);
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0]).toMatchObject({
      label: "E1",
      code: "broken-relative",
      patchId: inc.patchIds[0],
      sliceId: inc.sliceId,
    });
    expect(w.issues.list({ subjectId: "hero" })).toHaveLength(1);
    expect(w.issues.list({ sliceId: inc.sliceId })).toHaveLength(1);
    expect(w.slice.get(inc.sliceId).issues).toHaveLength(1);
    expect(w.subject.get("hero")?.gold).toBeUndefined();
  });
});

describe("types are enforced on every write", () => {
  beforeEach(() => {
    w.slice.write({
      time: 0,
      patches: [{ subjectId: "sword", type: "item", path: "/name", op: "replace", value: "Sword" }],
    });
    w.slice.write({ time: 1, patches: hero([{ path: "/name", op: "replace", value: "Aya" }]) });
  });
  const bad: Array<[string, string, unknown]> = [
    ["string", "/name", 5],
    ["boolean", "/alive", "yes"],
    ["int", "/hp", 1.5],
    ["float", "/power", "strong"],
    ["enum", "/mood", "sad"],
    ["ref format", "/location", "town"],
    ["ref target missing", "/location", "subject://nowhere"],
    ["ref wrong type", "/location", "subject://sword"],
    ["list item", "/skills", [1]],
    ["set duplicates", "/inventory", ["a", "a"]],
    ["object unknown field", "/stats", { luck: 1 }],
    ["object field type", "/stats/dex", "high"],
    ["record value", "/memory/x", 3],
    ["text empty", "/bio", " "],
    ["list of ref", "/refsList", ["subject://hero"]],
    ["free attribute object", "/free", { a: 1 }],
    ["NaN", "/power", Number.NaN],
    ["object field named like a builtin", "/stats", { constructor: { a: 1 } }],
    ["free attribute named like a builtin", "/toString", { a: 1 }],
  ];
  it.each(bad)("rejects a bad %s value", (_what, path, value) => {
    const e = errorOf(() =>
      w.slice.write({ time: 2, patches: [{ subjectId: "hero", path, op: "replace", value }] }),
    );
    expect(e.code).toBe("invalid_input");
    expect(e.fields?.[0].pointer).toMatch(/^\/patches\/0/);
    expect(w.slice.list()).toHaveLength(2);
  });

  it("accepts good values of every type, and null for scalars", () => {
    w.slice.write({
      time: 2,
      patches: [
        { subjectId: "hero", path: "/alive", op: "replace", value: false },
        { subjectId: "hero", path: "/power", op: "replace", value: 1.5 },
        { subjectId: "hero", path: "/mood", op: "replace", value: "calm" },
        { subjectId: "hero", path: "/refsList", op: "append", value: "subject://sword" },
        { subjectId: "hero", path: "/stats/dex", op: "replace", value: 3 },
        { subjectId: "hero", path: "/name", op: "replace", value: null },
        { subjectId: "hero", path: "/free", op: "replace", value: "ad-hoc fact" },
      ],
    });
    expect(w.subject.get("hero")).toMatchObject({
      alive: false,
      power: 1.5,
      mood: "calm",
      refsList: ["subject://sword"],
      stats: { str: 10, dex: 3 },
      name: null,
      free: "ad-hoc fact",
    });
  });

  it("checks ops against the attribute kind", () => {
    expect(
      errorOf(() =>
        w.slice.write({
          time: 2,
          patches: [{ subjectId: "hero", path: "/name", op: "increment", value: 1 }],
        }),
      ).fields?.[0].pointer,
    ).toBe("/patches/0/op");
    expect(
      errorOf(() =>
        w.slice.write({ time: 2, patches: [{ subjectId: "hero", path: "/free", op: "append", value: 1 }] }),
      ).fields?.[0].pointer,
    ).toBe("/patches/0/op");
    expect(
      errorOf(() =>
        w.slice.write({
          time: 2,
          patches: [{ subjectId: "hero", path: "/hp", op: "increment", value: 0.5 }],
        }),
      ).code,
    ).toBe("invalid_input");
    expect(
      errorOf(() => w.slice.write({ time: 2, patches: [{ subjectId: "hero", path: "/hp", op: "replace" }] }))
        .fields?.[0].pointer,
    ).toBe("/patches/0/value");
  });

  it("rejects malformed paths", () => {
    for (const path of [
      "",
      "hp",
      "/",
      "//x",
      "/a~2",
      " /hp",
      "/stats/luck",
      "/name/x",
      "/skills/first",
      "/__proto__/x",
      "/notes/__proto__",
    ]) {
      const e = errorOf(() =>
        w.slice.write({ time: 2, patches: [{ subjectId: "hero", path, op: "replace", value: 1 }] }),
      );
      expect(e.fields?.[0].pointer, path).toMatch(/^\/patches\/0/);
    }
  });
});

describe("slices and subjects", () => {
  it("one slice per instant: conflict names the existing slice, merge appends (10)", () => {
    const a = w.slice.write({
      time: 5,
      title: "Dawn",
      patches: hero([{ path: "/name", op: "replace", value: "A" }]),
    });
    const e = errorOf(() =>
      w.slice.write({ time: 5, patches: [{ subjectId: "hero", path: "/hp", op: "replace", value: 1 }] }),
    );
    expect(e.code).toBe("conflict");
    expect(e.message).toContain(a.sliceId);
    expect(e.details).toMatchObject({ existingSliceId: a.sliceId, instant: 5 });
    const m = w.slice.write({
      time: 5,
      merge: true,
      patches: [{ subjectId: "hero", path: "/hp", op: "increment", value: -1 }],
    });
    expect(m.sliceId).toBe(a.sliceId);
    expect(m.patchIds.slice(0, a.patchIds.length)).toEqual(a.patchIds);
    expect(w.subject.get("hero")?.hp).toBe(99);
    const b = w.slice.write({
      time: 6,
      patches: [{ subjectId: "hero", path: "/hp", op: "replace", value: 2 }],
    });
    expect(
      errorOf(() =>
        w.slice.editPatches(b.sliceId, [{ patchId: b.patchIds[0], set: { value: 3 } }], { time: 5 }),
      ).code,
    ).toBe("conflict");
  });

  it("a first write needs a type; with type and name the subject is registered (11)", () => {
    const e = errorOf(() =>
      w.slice.write({ time: 1, patches: [{ subjectId: "ghost", path: "/name", op: "replace", value: "G" }] }),
    );
    expect(e.code).toBe("invalid_input");
    expect(e.message).toContain("type");
    expect(w.subject.list()).toEqual([]);
    expect(
      errorOf(() =>
        w.slice.write({
          time: 1,
          patches: [{ subjectId: "g", type: "dragon", path: "/n", op: "replace", value: 1 }],
        }),
      ).message,
    ).toContain("unknown subject type");
    w.slice.write({
      time: 1,
      patches: [{ subjectId: "hero", type: "character", name: "Aya", path: "/hp", op: "replace", value: 7 }],
    });
    expect(w.subject.list()).toEqual([{ id: "hero", type: "character", name: "Aya" }]);
    expect(w.subject.get("hero")?.hp).toBe(7);
    expect(
      errorOf(() =>
        w.slice.write({
          time: 2,
          patches: [{ subjectId: "hero", type: "item", path: "/hp", op: "replace", value: 1 }],
        }),
      ).fields?.[0].pointer,
    ).toBe("/patches/0/type");
  });

  it("a caught failing write leaves no orphan subject (savepoint)", () => {
    const r = w.transaction(() => {
      try {
        w.slice.write({
          time: 1,
          patches: [{ subjectId: "hero", type: "character", path: "/name", op: "replace", value: 5 }],
        });
      } catch {
        return "caught";
      }
      return "no error";
    });
    expect(r.value).toBe("caught");
    expect(w.subject.list()).toEqual([]);
  });

  it("merging still holds a slice to 100 patches", () => {
    const keys = (from: number, n: number): PatchInput[] =>
      Array.from({ length: n }, (_, i) => ({
        subjectId: "box",
        ...(from + i === 0 ? { type: "item" } : {}),
        path: `/k${from + i}`,
        op: "replace" as const,
        value: from + i,
      }));
    const a = w.slice.write({ time: 1, patches: keys(0, 60) });
    const e = errorOf(() => w.slice.write({ time: 1, merge: true, patches: keys(60, 41) }));
    expect(e.code).toBe("invalid_input");
    expect(e.message).toContain("at most 100 patches (this one would have 101)");
    expect(w.slice.get(a.sliceId).patchCount).toBe(60);
    w.slice.write({ time: 1, merge: true, patches: keys(60, 40) });
    expect(w.slice.get(a.sliceId).patchCount).toBe(100);
    expect(w.subject.get("box")?.k99).toBe(99);
  });

  it("deleting the only slice keeps the identity (12)", () => {
    const a = w.slice.write({ time: 1, patches: hero([{ path: "/name", op: "replace", value: "A" }]) });
    w.slice.delete(a.sliceId);
    expect(w.subject.list().map((s) => s.id)).toEqual(["hero"]);
    expect(w.slice.list({ subjectIds: ["hero"] })).toEqual([]);
    expect(w.subject.get("hero")).toEqual({});
    expect(errorOf(() => w.slice.delete(a.sliceId)).code).toBe("not_found");
  });

  it("editPatches fixes a path, keeps untouched ids, rejects a removed id (13)", () => {
    const a = w.slice.write({
      time: 1,
      patches: hero([
        { path: "/name", op: "replace", value: "A" },
        { path: "/HP", op: "replace", value: 5 },
      ]),
    });
    const bad = a.patchIds[a.patchIds.length - 1];
    const r = w.slice.editPatches(a.sliceId, [{ patchId: bad, set: { path: "/hp" } }]);
    expect(r.patchIds).toEqual(a.patchIds);
    expect(w.subject.get("hero")).toMatchObject({ hp: 5 });
    expect(w.subject.get("hero")?.HP).toBeUndefined();
    const r2 = w.slice.editPatches(a.sliceId, [
      { patchId: bad, remove: true },
      { add: { subjectId: "hero", path: "/mood", op: "replace", value: "calm" } },
    ]);
    expect(r2.patchIds).not.toContain(bad);
    expect(r2.patchIds.slice(0, -1)).toEqual(a.patchIds.slice(0, -1));
    expect(errorOf(() => w.slice.editPatches(a.sliceId, [{ patchId: bad, remove: true }])).code).toBe(
      "not_found",
    );
    expect(w.subject.get("hero")).toMatchObject({ hp: 100, mood: "calm" });
  });

  it("editPatches rejects a changed patch that would fail, storing nothing", () => {
    const a = w.slice.write({ time: 1, patches: hero([{ path: "/name", op: "replace", value: "A" }]) });
    const e = errorOf(() =>
      w.slice.editPatches(a.sliceId, [
        { add: { subjectId: "hero", path: "/gold", op: "increment", value: 1 } },
      ]),
    );
    expect(e.code).toBe("invalid_input");
    expect(e.fields?.[0].pointer).toBe("/edits/0");
    expect(w.slice.get(a.sliceId).patches).toHaveLength(a.patchIds.length);
    expect(
      errorOf(() =>
        w.slice.editPatches(
          a.sliceId,
          a.patchIds.map((patchId) => ({ patchId, remove: true as const })),
        ),
      ).code,
    ).toBe("invalid_input");
  });

  it("editPatches moves a slice in time and replays both positions", () => {
    w.slice.write({ time: 1, patches: hero([{ path: "/gold", op: "replace", value: 1 }]) });
    const mid = w.slice.write({
      time: 5,
      patches: [{ subjectId: "hero", path: "/gold", op: "replace", value: 10 }],
    });
    w.slice.write({ time: 7, patches: [{ subjectId: "hero", path: "/gold", op: "increment", value: 1 }] });
    expect(w.subject.get("hero")?.gold).toBe(11);
    w.slice.editPatches(mid.sliceId, [], { time: 9 });
    expect(w.slice.get(mid.sliceId).instant).toBe(9);
    expect(w.subject.get("hero")?.gold).toBe(10);
    expect(w.subject.get("hero", { at: 7 })?.gold).toBe(2);
  });

  it("editPatches refuses to move a slice where its patches no longer apply, storing nothing", () => {
    w.slice.write({ time: 1, patches: hero([{ path: "/gold", op: "replace", value: 10 }]) });
    const inc = w.slice.write({
      time: 5,
      patches: [{ subjectId: "hero", path: "/gold", op: "increment", value: 1 }],
    });
    const e = errorOf(() => w.slice.editPatches(inc.sliceId, [], { time: 0 }));
    expect(e.code).toBe("invalid_input");
    expect(e.fields?.[0].pointer).toBe("/meta/time");
    expect(e.message).toMatch(/patch \S+ \(increment \/gold\) fails: E1 .*no numeric base/);
    expect(e.details).toMatchObject({ label: "E1", patchId: inc.patchIds[0] });
    expect(w.slice.get(inc.sliceId).instant).toBe(5);
    expect(w.subject.get("hero")?.gold).toBe(11);
    expect(w.issues.list()).toEqual([]);
  });

  it("a patch already broken by an earlier edit does not stop its slice from moving", () => {
    w.slice.write({ time: 1, patches: hero([{ path: "/name", op: "replace", value: "A" }]) });
    const base = w.slice.write({
      time: 2,
      patches: [{ subjectId: "hero", path: "/gold", op: "replace", value: 10 }],
    });
    const inc = w.slice.write({
      time: 5,
      patches: [{ subjectId: "hero", path: "/gold", op: "increment", value: 1 }],
    });
    w.slice.delete(base.sliceId);
    expect(w.issues.list({ sliceId: inc.sliceId })).toHaveLength(1);
    w.slice.editPatches(inc.sliceId, [], { time: 6 });
    expect(w.slice.get(inc.sliceId)).toMatchObject({ instant: 6, issues: [{ label: "E1" }] });
  });

  it("slice.list filters by subject (any/all) and pages the latest N (14)", () => {
    w.slice.write({
      time: 0,
      patches: [{ subjectId: "town", type: "location", path: "/name", op: "replace", value: "T" }],
    });
    w.slice.write({ time: 1, patches: hero([{ path: "/name", op: "replace", value: "A" }]) });
    w.slice.write({
      time: 2,
      patches: [
        { subjectId: "hero", path: "/hp", op: "replace", value: 1 },
        { subjectId: "town", path: "/name", op: "replace", value: "U" },
      ],
    });
    w.slice.write({ time: 3, patches: [{ subjectId: "town", path: "/name", op: "replace", value: "V" }] });
    expect(w.slice.list({ subjectIds: ["hero"], subjectMode: "any" }).map((s) => s.instant)).toEqual([1, 2]);
    expect(w.slice.list({ subjectIds: ["hero", "town"], subjectMode: "any" }).map((s) => s.instant)).toEqual([
      0, 1, 2, 3,
    ]);
    expect(w.slice.list({ subjectIds: ["hero", "town"], subjectMode: "all" }).map((s) => s.instant)).toEqual([
      2,
    ]);
    expect(w.slice.list({ limit: 2 }).map((s) => s.instant)).toEqual([2, 3]);
    expect(w.slice.list({ from: 1, limit: 2 }).map((s) => s.instant)).toEqual([1, 2]);
    expect(w.slice.list({ from: 1, to: 2, withPatches: true })[1].patches).toHaveLength(2);
    expect(errorOf(() => w.slice.list({ from: 3, to: 1 })).code).toBe("invalid_input");
    expect(errorOf(() => w.slice.list({ subjectIds: ["nobody"] })).code).toBe("not_found");
    const g = w.slice.get(w.slice.list({ from: 2, to: 2 })[0].id);
    expect(g).toMatchObject({ instant: 2, previousInstant: 1, nextInstant: 3, patchCount: 2 });
    expect(errorOf(() => w.slice.get("nope")).code).toBe("not_found");
  });

  it("rejects an append onto a value that is not a list, with no initialiser (16)", () => {
    t.setSchema("types:\n  character:\n    attrs:\n      name: string\n");
    w.slice.write({ time: 1, patches: hero([{ path: "/tags", op: "replace", value: "x" }]) });
    t.setSchema(
      "types:\n  character:\n    attrs:\n      name: string\n      tags: { type: list, of: string }\n",
    );
    const e = errorOf(() =>
      w.slice.write({ time: 2, patches: [{ subjectId: "hero", path: "/tags", op: "append", value: "y" }] }),
    );
    expect(e.code).toBe("invalid_input");
    expect(e.fields?.[0].pointer).toBe("/patches/0");
    expect(e.message).toMatch(/E1 .*base is not an array \(string\)/);
    expect(w.slice.list().map((s) => s.patchCount)).toEqual([1]);
    expect(w.subject.get("hero")?.tags).toBe("x");
  });

  it("inserts an initialiser before an append to a declared but missing list (15)", () => {
    t.setSchema("types:\n  character:\n    attrs:\n      name: string\n");
    w.slice.write({ time: 1, patches: hero([{ path: "/name", op: "replace", value: "A" }]) });
    t.setSchema(
      "types:\n  character:\n    attrs:\n      name: string\n      tags: { type: list, of: string }\n",
    );
    const r = w.slice.write({
      time: 2,
      patches: [{ subjectId: "hero", path: "/tags", op: "append", value: "x" }],
    });
    expect(w.slice.get(r.sliceId).patches.map((p) => [p.op, p.value])).toEqual([
      ["replace", []],
      ["append", "x"],
    ]);
    const r2 = w.slice.write({
      time: 3,
      patches: [{ subjectId: "hero", path: "/tags", op: "append", value: "y" }],
    });
    expect(w.slice.get(r2.sliceId).patches).toHaveLength(1);
    expect(w.subject.get("hero")?.tags).toEqual(["x", "y"]);
  });

  it("limits: at most 100 patches per slice, at least one, safe-integer instants (17)", () => {
    const many = Array.from({ length: 101 }, (_, i) => ({
      subjectId: "hero",
      type: "character",
      path: `/k${i}`,
      op: "replace" as const,
      value: i,
    }));
    expect(errorOf(() => w.slice.write({ time: 1, patches: many })).code).toBe("invalid_input");
    expect(errorOf(() => w.slice.write({ time: 1, patches: [] })).code).toBe("invalid_input");
    expect(
      errorOf(() =>
        w.slice.write({ time: 2 ** 60, patches: hero([{ path: "/a", op: "replace", value: 1 }]) }),
      ).code,
    ).toBe("invalid_input");
    // 97 user patches + 4 defaults exceed the limit too.
    const near = many.slice(0, 97);
    expect(errorOf(() => w.slice.write({ time: 1, patches: near })).message).toContain("at most 100");
    w.slice.write({ time: -5, patches: hero([{ path: "/a", op: "replace", value: 1 }]) });
    expect(w.subject.get("hero", { at: -5 })?.a).toBe(1);
  });
});

describe("issues", () => {
  it("editing a past replace under a later increment gives exactly one A1; a later replace gives A2 (18)", () => {
    const base = w.slice.write({ time: 1, patches: hero([{ path: "/gold", op: "replace", value: 100 }]) });
    const inc = w.slice.write({
      time: 2,
      patches: [{ subjectId: "hero", path: "/gold", op: "increment", value: -10 }],
    });
    const goldPatch = base.patchIds[base.patchIds.length - 1];
    const r = w.slice.editPatches(base.sliceId, [{ patchId: goldPatch, set: { value: 80 } }]);
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0]).toMatchObject({
      label: "A1",
      code: "base-shifted",
      severity: "advisory",
      patchId: inc.patchIds[0],
    });
    expect(w.subject.get("hero")?.gold).toBe(70);
    // Once the increment took the change, later patches on the same path are covered by it.
    w.slice.write({ time: 3, patches: [{ subjectId: "hero", path: "/gold", op: "replace", value: 5 }] });
    const r2 = w.slice.editPatches(base.sliceId, [{ patchId: goldPatch, set: { value: 60 } }]);
    expect(r2.issues.map((i) => i.label)).toEqual(["A1"]);
    const r3 = w.slice.editPatches(base.sliceId, [
      { add: { subjectId: "hero", path: "/stats/dex", op: "replace", value: 1 } },
    ]);
    expect(r3.issues).toEqual([]);
    w.slice.write({
      time: 4,
      patches: [{ subjectId: "hero", path: "/stats", op: "replace", value: { str: 1 } }],
    });
    const r4 = w.slice.editPatches(base.sliceId, [
      { patchId: r3.patchIds[r3.patchIds.length - 1], set: { value: 2 } },
    ]);
    expect(r4.issues).toHaveLength(1);
    expect(r4.issues[0]).toMatchObject({
      label: "A2",
      code: "masked",
      attr: "/stats/dex",
      sliceId: base.sliceId,
    });
    const atLatest = w.slice.write({
      time: 10,
      patches: [{ subjectId: "hero", path: "/gold", op: "replace", value: 1 }],
    });
    expect(atLatest.issues).toEqual([]);
  });

  it("a ref that stops resolving after a schema change is E2, attributed to the slice that wrote it (19)", () => {
    const a = w.slice.write({
      time: 1,
      patches: hero([
        { path: "/boss", op: "replace", value: "subject://nobody" },
        { path: "/gold", op: "replace", value: 1 },
      ]),
    });
    expect(w.issues.list()).toEqual([]);
    t.setSchema(
      `${t.world.schema.describe().source === "file" ? "" : ""}types:\n  character:\n    attrs:\n      boss: ref:character\n`,
    );
    const issues = w.issues.list({ subjectId: "hero" });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ label: "E2", code: "dangling-ref", attr: "/boss", sliceId: a.sliceId });
    // Creating the missing subject resolves it.
    const r = w.slice.write({
      time: 2,
      patches: [{ subjectId: "nobody", type: "character", path: "/x", op: "replace", value: 1 }],
    });
    expect(r.issues).toEqual([]);
    expect(w.issues.list()).toEqual([]);
  });

  it("reports issues a write caused separately from pre-existing ones (21)", () => {
    w.slice.write({ time: 1, patches: hero([{ path: "/gold", op: "replace", value: 1 }]) });
    const base = w.slice.write({
      time: 2,
      patches: [{ subjectId: "hero", path: "/silver", op: "replace", value: 1 }],
    });
    w.slice.write({ time: 3, patches: [{ subjectId: "hero", path: "/silver", op: "increment", value: 1 }] });
    w.slice.write({ time: 4, patches: [{ subjectId: "hero", path: "/silver", op: "increment", value: 1 }] });
    const del = w.slice.delete(base.sliceId);
    expect(del.issues).toHaveLength(2);
    expect(new Set(del.issues.map((i) => i.patchId)).size).toBe(2);
    const later = w.slice.write({
      time: 5,
      patches: [{ subjectId: "hero", path: "/gold", op: "increment", value: 1 }],
    });
    expect(later.issues).toEqual([]);
    expect(later.existingIssues).toHaveLength(2);
  });

  it("every catalog entry has its wording; a rejected text-container replace carries E5 (22)", () => {
    for (const [label, c] of Object.entries(ISSUE_CATALOG)) {
      expect(c.code, label).toMatch(/^[a-z-]+$/);
      expect(c.severity).toBe(label.startsWith("E") ? "error" : "advisory");
      expect(c.title.length).toBeGreaterThan(5);
      expect(Object.values(c.explanation).every((s) => s.length > 10)).toBe(true);
    }
    const e = errorOf(() =>
      w.slice.write({ time: 1, patches: hero([{ path: "/events", op: "replace", value: ["a"] }]) }),
    );
    expect(e.details).toMatchObject({ label: "E5", code: "embedding-whole-replace" });
    w.slice.write({ time: 1, patches: hero([{ path: "/events", op: "replace", value: [] }]) });
  });
});

describe("reads", () => {
  beforeEach(() => {
    w.slice.write({
      time: 0,
      patches: [{ subjectId: "town", type: "location", path: "/name", op: "replace", value: "Town" }],
    });
    w.slice.write({
      time: 1,
      patches: hero([
        { path: "/location", op: "replace", value: "subject://town" },
        { path: "/friend", op: "replace", value: "subject://hero" },
      ]),
    });
  });

  it("get / gets / findRefs / deref (28)", () => {
    expect(w.subject.gets(["hero", "missing"]).map((x) => x === null)).toEqual([false, true]);
    expect(w.subject.findRefs("town")).toEqual([{ subjectId: "hero", attr: "/location" }]);
    expect(w.subject.findRefs("town", { sourceType: "location" })).toEqual([]);
    expect(w.subject.findRefs("town", { at: 0 })).toEqual([]);
    const d = w.subject.get("hero", { deref: true });
    expect(d?.location).toEqual({ __ref: "subject://town", name: "Town", events: [] });
    expect(d?.friend).toEqual({ __ref: "subject://hero", __circular: true });
    w.slice.write({
      time: 2,
      patches: [{ subjectId: "hero", path: "/rival", op: "replace", value: "subject://ghost" }],
    });
    expect(w.subject.get("hero", { deref: true })?.rival).toEqual({
      __ref: "subject://ghost",
      __missing: true,
    });
    w.slice.write({
      time: 3,
      patches: [{ subjectId: "hero", path: "/location", op: "replace", value: null }],
    });
    expect(w.subject.findRefs("town")).toEqual([]);
    expect(w.subject.findRefs("town", { at: 2 })).toEqual([{ subjectId: "hero", attr: "/location" }]);
  });

  it("history lists each change with its slice, filtered by path", () => {
    w.slice.write({
      time: 2,
      title: "Move",
      patches: [{ subjectId: "hero", path: "/location", op: "replace", value: null }],
    });
    const h = w.subject.history("hero", { path: "/location" });
    expect(h.map((e) => [e.instant, e.value])).toEqual([
      [1, "subject://town"],
      [2, null],
    ]);
    expect(h[1].sliceTitle).toBe("Move");
    expect(errorOf(() => w.subject.history("nobody")).code).toBe("not_found");
  });

  it("list sorts by type then id; an undeclared type is invalid", () => {
    expect(w.subject.list().map((s) => s.id)).toEqual(["hero", "town"]);
    expect(w.subject.list("location").map((s) => s.id)).toEqual(["town"]);
    expect(errorOf(() => w.subject.list("dragon")).code).toBe("invalid_input");
  });

  it("schema.describe lists types and attributes with defaults", () => {
    const d = w.schema.describe();
    const c = d.types.find((x) => x.type === "character");
    expect(c?.attrs.find((a) => a.name === "hp")).toMatchObject({ type: "int", default: 100 });
    expect(c?.attrs.find((a) => a.name === "location")).toMatchObject({ type: "ref", to: "location" });
    expect(c?.attrs.find((a) => a.name === "inventory")).toMatchObject({
      type: "set",
      default: [],
      of: { type: "string" },
    });
  });
});

describe("transactions", () => {
  it("a throw rolls back every write; a dry run reports and rolls back", () => {
    expect(() =>
      w.transaction(() => {
        w.slice.write({ time: 1, patches: hero([{ path: "/a", op: "replace", value: 1 }]) });
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(w.slice.list()).toEqual([]);
    const dry = w.transaction(
      () => {
        w.slice.write({ time: 1, title: "T", patches: hero([{ path: "/a", op: "replace", value: 1 }]) });
        return w.subject.get("hero")?.a;
      },
      { dryRun: true },
    );
    expect(dry.value).toBe(1);
    expect(dry.writes).toHaveLength(1);
    expect(dry.writes[0]).toMatchObject({ action: "write", instant: 1, title: "T" });
    expect(dry.writes[0].patches.some((p) => p.path === "/a")).toBe(true);
    expect(w.subject.list()).toEqual([]);
    const real = w.transaction(() =>
      w.slice.write({ time: 1, patches: hero([{ path: "/a", op: "replace", value: 1 }]) }),
    );
    expect(real.writes).toHaveLength(1);
    expect(w.subject.get("hero")?.a).toBe(1);
  });

  it("data survives reopening the database", () => {
    w.slice.write({ time: 1, patches: hero([{ path: "/events", op: "append", value: "the long night" }]) });
    w.close();
    const again = new World({ dbPath: `${t.dir}/world.sqlite`, schemaPath: t.schemaPath });
    expect(again.subject.get("hero")?.events).toEqual(["the long night"]);
    expect(again.search.text("long night").map((h) => h.attr)).toEqual(["/events/0"]);
    again.close();
  });
});

describe("re-deriving what a write changes", () => {
  const rows = (sql: string) => w.db.prepare(sql).all();
  const story = () => {
    for (let i = 1; i <= 40; i++)
      w.slice.write({
        time: i * 10,
        patches: hero([
          { path: "/events", op: "append", value: `chapter ${i} begins with rain` },
          { path: "/hp", op: "increment", value: -1 },
        ]),
      });
  };

  it("a change of the past leaves the rows of the attributes it does not touch as they were", () => {
    story();
    const texts = rows(
      "SELECT id, attr, from_instant, to_instant FROM texts WHERE subject_id = 'hero' ORDER BY id",
    );
    const checkpoints = rows(
      "SELECT rowid, instant FROM checkpoints WHERE subject_id = 'hero' AND top = 'events'",
    );
    w.slice.write({ time: 55, patches: [{ subjectId: "hero", path: "/hp", op: "increment", value: -10 }] });
    expect(w.subject.get("hero")?.hp).toBe(50);
    expect(w.subject.get("hero", { at: 54 })?.hp).toBe(95);
    expect(
      rows("SELECT id, attr, from_instant, to_instant FROM texts WHERE subject_id = 'hero' ORDER BY id"),
    ).toEqual(texts);
    expect(
      rows("SELECT rowid, instant FROM checkpoints WHERE subject_id = 'hero' AND top = 'events'"),
    ).toEqual(checkpoints);
  });

  it("an append in the past moves the later list items' text rows to their new index in place", () => {
    story();
    const before = rows(
      "SELECT id, attr FROM texts WHERE subject_id = 'hero' AND from_instant > 55 ORDER BY id",
    ) as Array<{
      id: number;
      attr: string;
    }>;
    w.slice.write({
      time: 55,
      patches: [{ subjectId: "hero", path: "/events", op: "append", value: "an interlude at dawn" }],
    });
    expect(w.subject.get("hero")?.events).toHaveLength(41);
    const events = w.subject.get("hero")?.events as string[];
    expect(events.indexOf("an interlude at dawn")).toBe(5);
    expect(
      rows("SELECT id, attr FROM texts WHERE subject_id = 'hero' AND from_instant > 55 ORDER BY id"),
    ).toEqual(before.map((r) => ({ id: r.id, attr: `/events/${Number(r.attr.split("/")[2]) + 1}` })));
    expect(w.search.text("chapter 40").map((h) => h.attr)[0]).toBe("/events/40");
    expect(w.search.text("interlude").map((h) => h.attr)).toEqual(["/events/5"]);
  });
});

describe("storage", () => {
  it("the access paths use indexes: patches by slice and by subject, issues by slice, refs by target", () => {
    const plan = (sql: string) =>
      (w.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>)
        .map((r) => r.detail)
        .join("; ");
    expect(plan("SELECT * FROM patches WHERE slice_id = 's' ORDER BY seq")).toContain("INDEX patches_slice");
    expect(
      plan("SELECT * FROM patches WHERE subject_id = 'a' AND instant > 1 ORDER BY instant, seq"),
    ).toContain("INDEX patches_subject");
    expect(plan("SELECT * FROM issues WHERE slice_id = 's'")).toContain("INDEX issues_slice");
    expect(plan("SELECT * FROM refs WHERE target = 'a' AND to_instant IS NULL")).toContain(
      "INDEX refs_target",
    );
    expect(plan("SELECT * FROM slices WHERE instant = 5")).toMatch(/INDEX sqlite_autoindex_slices/);
  });

  it("bounds the lists a filter may name", () => {
    const ids = Array.from({ length: 1001 }, (_, i) => `s${i}`);
    expect(errorOf(() => w.slice.list({ subjectIds: ids })).fields?.[0].pointer).toBe("/subjectIds");
    expect(errorOf(() => w.search.text("storm", { types: ids })).code).toBe("invalid_input");
    expect(errorOf(() => w.search.text("x".repeat(2001))).code).toBe("invalid_input");
    expect(errorOf(() => w.slice.list({ subjectMode: "all" })).fields?.[0].pointer).toBe("/subjectMode");
  });

  it("keeps every path segment an own key: no __proto__, no inherited names", () => {
    const p = tempWorld(null);
    try {
      const e = errorOf(() =>
        p.world.slice.write({
          time: 1,
          patches: [{ subjectId: "x", type: "thing", path: "/__proto__", op: "replace", value: 1 }],
        }),
      );
      expect(e.message).toContain('segment "__proto__"');
      p.world.slice.write({
        time: 1,
        patches: [{ subjectId: "c", type: "constructor", path: "/toString", op: "replace", value: "ok" }],
      });
      expect(p.world.subject.get("c")).toEqual({ toString: "ok" });
    } finally {
      p.cleanup();
    }
  });
});

describe("edit error pointers", () => {
  it("point into the edit that is wrong", () => {
    const a = w.slice.write({ time: 1, patches: hero([{ path: "/name", op: "replace", value: "A" }]) });
    const last = a.patchIds[a.patchIds.length - 1];
    expect(
      errorOf(() => w.slice.editPatches(a.sliceId, [{ patchId: last, set: { value: 5 } }])).fields?.[0]
        .pointer,
    ).toBe("/edits/0/set/value");
    expect(
      errorOf(() =>
        w.slice.editPatches(a.sliceId, [
          { add: { subjectId: "hero", path: "bad", op: "replace", value: 1 } },
        ]),
      ).fields?.[0].pointer,
    ).toBe("/edits/0/add/path");
  });
});
