import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { plotFixture } from "../../../test/plot/tool-fixture.js";

let f: ReturnType<typeof plotFixture>;
let thread: number;
let chapter: number;
beforeEach(async () => {
  f = plotFixture();
  thread = await f.create("save_story_thread", { name: "main", title: "Main" });
  chapter = await f.create("save_story_chapter", { name: "ch-1", title: "One" });
});
afterEach(() => f.cleanup());

const scene = async (title: string, status = "draft") =>
  await f.create("save_story_scene", { threadId: thread, chapterId: chapter, title, status });
const promise = async (name: string, extra: Record<string, unknown> = {}) =>
  await f.create("save_story_promise", { name, title: name.toUpperCase(), ...extra });
const beat = (promiseId: number, sceneId: number, kind: string, extra: Record<string, unknown> = {}) =>
  f.ok("save_promise_beat", { action: "set", promiseId, sceneId, kind, ...extra });

describe("promise rules", () => {
  it("a payoff beat fulfils an open promise and records who did it", async () => {
    const p = await promise("ring");
    const s = await scene("Reveal");
    const r = await beat(p, s, "payoff");
    expect(r.status).toBe("fulfilled");
    expect(r.fulfilledVia).toBe("payoff");
    const again = await f.ok(
      "save_promise_beat",
      { action: "set", promiseId: p, sceneId: s, kind: "payoff" },
      { profileKey: "director" },
    );
    expect(again.fulfilledBy).toBe("user");
  });

  it("autoFulfill: false leaves the promise open", async () => {
    const p = await promise("ring");
    expect((await beat(p, await scene("S"), "payoff", { autoFulfill: false })).status).toBe("open");
  });

  it("a payoff on an archived scene does not fulfil", async () => {
    const p = await promise("ring");
    expect((await beat(p, await scene("S", "archived"), "payoff")).status).toBe("open");
  });

  it("changing the only payoff to advance reopens; removing one of two payoffs does not", async () => {
    const p = await promise("ring");
    const a = await scene("A");
    const b = await scene("B");
    await beat(p, a, "payoff");
    await beat(p, b, "payoff");
    expect((await f.ok("save_promise_beat", { action: "remove", promiseId: p, sceneId: a })).status).toBe(
      "fulfilled",
    );
    const r = await beat(p, b, "advance");
    expect(r.status).toBe("open");
    expect(r.derivedStage).toBe("echoed");
  });

  it("removing the last payoff or archiving its scene reopens", async () => {
    const p = await promise("ring");
    const s = await scene("S");
    await beat(p, s, "payoff");
    expect((await f.ok("save_promise_beat", { action: "remove", promiseId: p, sceneId: s })).status).toBe(
      "open",
    );
    await beat(p, s, "payoff");
    await f.ok("save_story_scene", { action: "archive", sceneId: s });
    expect((await f.ok("get_story_promise", { promiseId: p })).status).toBe("open");
  });

  it("never reopens a promise fulfilled by hand, nor touches an abandoned one", async () => {
    const manual = await promise("manual");
    const s = await scene("S");
    await beat(manual, s, "plant");
    const fulfilled = await f.ok(
      "save_story_promise",
      { action: "fulfill", promiseId: manual },
      { profileKey: "director" },
    );
    expect(fulfilled.fulfilledVia).toBe("manual");
    expect(fulfilled.fulfilledBy).toBe("director");
    await beat(manual, s, "payoff");
    expect(
      (await f.ok("save_promise_beat", { action: "remove", promiseId: manual, sceneId: s })).status,
    ).toBe("fulfilled");

    const dropped = await promise("dropped");
    await f.ok("save_story_promise", { action: "abandon", promiseId: dropped });
    expect((await beat(dropped, s, "payoff")).status).toBe("abandoned");
    await f.ok("save_story_scene", { action: "archive", sceneId: s });
    expect((await f.ok("get_story_promise", { promiseId: dropped })).status).toBe("abandoned");
  });

  it("reopen clears the fulfilment; a hand fulfil turns a payoff fulfilment into a manual one", async () => {
    const p = await promise("ring");
    const s = await scene("S");
    await beat(p, s, "payoff");
    const reopened = await f.ok("save_story_promise", { action: "reopen", promiseId: p });
    expect(reopened).toMatchObject({ status: "open", fulfilledVia: null, fulfilledBy: null });
    expect((await f.fail("save_story_promise", { action: "reopen", promiseId: p })).code).toBe("conflict");
    await beat(p, s, "payoff");
    const manual = await f.ok("save_story_promise", { action: "fulfill", promiseId: p });
    expect(manual).toMatchObject({ status: "fulfilled", fulfilledVia: "manual", fulfilledBy: "user" });
    expect((await f.fail("save_story_promise", { action: "fulfill", promiseId: p })).code).toBe("conflict");
    await f.ok("save_story_scene", { action: "archive", sceneId: s });
    expect((await f.ok("get_story_promise", { promiseId: p })).status).toBe("fulfilled");
  });

  it("derives stage and stats from live beats; archived scenes count only as archived", async () => {
    const p = await promise("ring", { importance: "high" });
    await beat(p, await scene("Plant", "active"), "plant");
    await beat(p, await scene("Advance", "written"), "advance");
    await beat(p, await scene("Payoff", "archived"), "payoff");
    const r = await f.ok("get_story_promise", { promiseId: p });
    expect(r.derivedStage).toBe("echoed");
    expect(r.beatStats).toEqual({
      plant: 1,
      advance: 1,
      setback: 0,
      payoff: 0,
      planned: 1,
      factual: 1,
      archived: 1,
    });
    expect(r.beats.map((b: { state: string }) => b.state)).toEqual(["planned", "factual", "archived"]);
  });

  it("keeps one beat per promise and scene (set again overwrites; omitted note is kept)", async () => {
    const p = await promise("ring");
    const s = await scene("S");
    await beat(p, s, "plant", { note: "show the ring" });
    const r = await beat(p, s, "advance");
    expect(r.beats).toHaveLength(1);
    expect(r.beats[0]).toMatchObject({ kind: "advance", note: "show the ring" });
  });

  it("lists open promises first by importance, with filters and paging", async () => {
    const low = await promise("low", { importance: "low", tags: ["motif"] });
    const high = await promise("high", { importance: "high", tags: ["motif", "mystery"] });
    const done = await promise("done", { importance: "high" });
    await f.ok("save_story_promise", { action: "fulfill", promiseId: done });
    const all = await f.ok("get_story_promise", {});
    expect(all.rows.map((r: { id: number }) => r.id)).toEqual([high, low, done]);
    const page1 = await f.ok("get_story_promise", { limit: 2 });
    expect(page1.rows).toHaveLength(2);
    expect(page1.nextCursor).not.toBeNull();
    const page2 = await f.ok("get_story_promise", { limit: 2, cursor: page1.nextCursor });
    expect(page2.rows.map((r: { id: number }) => r.id)).toEqual([done]);
    expect(page2.nextCursor).toBeNull();
    expect(
      (await f.ok("get_story_promise", { tag: "mystery" })).rows.map((r: { id: number }) => r.id),
    ).toEqual([high]);
    expect(
      (await f.ok("get_story_promise", { status: "fulfilled" })).rows.map((r: { id: number }) => r.id),
    ).toEqual([done]);
    expect((await f.ok("get_story_promise", { importance: "low" })).total).toBe(1);
  });

  it("refuses a beat on a scene or promise that does not exist, and a remove of a missing beat", async () => {
    const p = await promise("ring");
    const r = await f.call("save_promise_beat", { action: "set", promiseId: p, sceneId: 999, kind: "plant" });
    expect(r.ok ? null : r.error.code).toBe("not_found");
    const s = await scene("S");
    const rm = await f.call("save_promise_beat", { action: "remove", promiseId: p, sceneId: s });
    expect(rm.ok ? null : rm.error.code).toBe("not_found");
    const withKind = await f.call("save_promise_beat", {
      action: "remove",
      promiseId: p,
      sceneId: s,
      kind: "plant",
    });
    expect(withKind.ok ? null : withKind.error.fields).toEqual([
      { pointer: "/kind", message: "not accepted by action remove" },
    ]);
  });
});
