import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempWorld } from "../../test/world/fixture.js";
import type { WorldApi } from "../world/api.js";
import { type SceneWorldContext, type SceneWorldQuery, WorldLink } from "./world-link.js";

const GROUPS = new Set(["subject", "slice", "search", "schema", "issues"]);

/** The world behind a proxy that records every facade call (`subject.statesAt`, `now`, …). */
function recorded(world: WorldApi) {
  const calls: string[] = [];
  const wrap = (name: string, f: (...args: unknown[]) => unknown, self: unknown) => {
    return (...args: unknown[]) => {
      calls.push(name);
      return f.apply(self, args);
    };
  };
  const api = new Proxy(world, {
    get(target, key) {
      const v = Reflect.get(target, key);
      if (typeof key === "string" && GROUPS.has(key)) {
        return new Proxy(v as object, {
          get: (group, k) => wrap(`${key}.${String(k)}`, Reflect.get(group, k), group),
        });
      }
      return typeof v === "function" ? wrap(String(key), v, target) : v;
    },
  });
  return { api, calls };
}

let t: ReturnType<typeof tempWorld>;
beforeEach(() => {
  t = tempWorld(undefined, {}, 2);
  for (let i = 0; i < 30; i++) {
    t.world.slice.write({
      time: i * 10,
      patches: ["aya", "ben", "inn"].map((id, j) => ({
        subjectId: id,
        ...(i === 0 ? { type: id === "inn" ? "location" : "character", name: id.toUpperCase() } : {}),
        path: "/name",
        op: "replace" as const,
        value: `${id}-${i + j}`,
      })),
    });
  }
});
afterEach(() => t.cleanup());

/** `n` scenes of 20 seconds each, every one with two subjects and, every third one, an unknown id. */
function scenes(n: number): SceneWorldQuery[] {
  return Array.from({ length: n }, (_, k) => ({
    sceneId: k + 1,
    start: k * 20,
    end: k * 20 + 19,
    subjectIds: [["aya", "ben", "inn"][k % 3], "aya", ...(k % 3 === 0 ? ["ghost"] : [])].filter(
      (id, i, all) => all.indexOf(id) === i,
    ),
  }));
}

describe("WorldLink.sceneContexts", () => {
  it("answers many scenes at once exactly as it answers them one by one", () => {
    const link = new WorldLink(
      () => t.world,
      () => null,
    );
    const queries = scenes(14);
    const one = new Map<number, SceneWorldContext>();
    for (const q of queries) for (const [id, ctx] of link.sceneContexts([q])) one.set(id, ctx);
    const all = link.sceneContexts(queries);
    expect(all).toEqual(one);
    expect(all.get(1)?.unresolvedSubjectIds).toEqual(["ghost"]);
    expect(all.get(2)?.subjectStates.map((s) => [s.subjectId, s.attrs.name])).toEqual([
      ["ben", "ben-4"],
      ["aya", "aya-3"],
    ]);
    expect(all.get(2)?.slices.map((s) => [s.instant, s.patchCount])).toEqual([
      [20, 2],
      [30, 2],
    ]);
  });

  it("makes the same three world calls for a chapter of 2 scenes or 14", () => {
    const callsFor = (n: number) => {
      const { api, calls } = recorded(t.world);
      new WorldLink(
        () => api,
        () => null,
      ).sceneContexts(scenes(n));
      return calls;
    };
    const batch = ["subject.infos", "slice.list", "subject.statesAt"];
    expect(callsFor(2)).toEqual(batch);
    expect(callsFor(14)).toEqual(batch);
  });

  it("asks the world nothing for scenes without subjects, and only who they are for unknown ones", () => {
    const { api, calls } = recorded(t.world);
    const link = new WorldLink(
      () => api,
      () => null,
    );
    const empty = link.sceneContexts([{ sceneId: 1, start: 0, end: 100, subjectIds: [] }]);
    expect(empty.get(1)).toEqual({
      slices: [],
      subjectStates: [],
      unresolvedSubjectIds: [],
      slicesTruncated: false,
    });
    expect(calls).toEqual([]);
    const ghosts = link.sceneContexts([
      { sceneId: 2, start: 0, end: 100, subjectIds: ["ghost", "future-ally"] },
    ]);
    expect(ghosts.get(2)).toMatchObject({
      slices: [],
      subjectStates: [],
      unresolvedSubjectIds: ["ghost", "future-ally"],
    });
    expect(calls).toEqual(["subject.infos"]);
  });
});
