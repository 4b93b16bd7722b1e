import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempWorld } from "../../test/world/fixture.js";
import { NbError } from "../core/errors.js";
import type { World } from "./world.js";

let t: ReturnType<typeof tempWorld>;
let w: World;
beforeEach(() => {
  t = tempWorld(undefined, {}, 2);
  w = t.world;
  w.slice.write({
    time: 10,
    patches: [{ subjectId: "hero", type: "character", name: "Aya", path: "/hp", op: "replace", value: 50 }],
  });
  for (let time = 20; time <= 60; time += 10)
    w.slice.write({ time, patches: [{ subjectId: "hero", path: "/hp", op: "increment", value: -5 }] });
});
afterEach(() => t.cleanup());

function errorOf(fn: () => unknown): NbError {
  try {
    fn();
  } catch (e) {
    if (e instanceof NbError) return e;
    throw e;
  }
  throw new Error("expected an NbError");
}

describe("subject.statesAt", () => {
  it("answers each pair in the order asked: before the first patch, between checkpoints, after the last", () => {
    const states = w.subject.statesAt([
      { id: "hero", at: 60 },
      { id: "hero", at: 35 },
      { id: "nobody", at: 35 },
      { id: "hero", at: 5 },
      { id: "hero", at: 35 },
      { id: "hero", at: 1000 },
    ]);
    expect(states.map((s) => s?.hp ?? null)).toEqual([25, 40, null, null, 40, 25]);
    expect(states[3]).toEqual({});
    expect(states[1]).not.toBe(states[4]);
  });

  it("sees the writes of the enclosing transaction, like get", () => {
    const { value } = w.transaction(
      () => {
        w.slice.write({ time: 25, patches: [{ subjectId: "hero", path: "/hp", op: "replace", value: 1 }] });
        return w.subject.statesAt([
          { id: "hero", at: 25 },
          { id: "hero", at: 30 },
        ]);
      },
      { dryRun: true },
    );
    expect(value.map((s) => s?.hp)).toEqual([1, -4]);
    expect(w.subject.statesAt([{ id: "hero", at: 30 }])[0]?.hp).toBe(40);
  });

  it("refuses a malformed pair with the pointer of the bad field", () => {
    const e = errorOf(() =>
      w.subject.statesAt([
        { id: "hero", at: 1 },
        { id: "hero", at: 1.5 },
      ]),
    );
    expect(e.code).toBe("invalid_input");
    expect(e.fields?.[0].pointer).toBe("/1/at");
    expect(errorOf(() => w.subject.statesAt([{ id: "hero" } as never])).fields?.[0].pointer).toBe("/0/at");
  });
});

describe("subject.infos", () => {
  it("gives info of each id in the order asked, null for an unknown subject", () => {
    expect(w.subject.infos(["nobody", "hero"])).toEqual([
      null,
      { id: "hero", type: "character", name: "Aya" },
    ]);
    expect(errorOf(() => w.subject.infos([1 as never])).code).toBe("invalid_input");
  });
});
