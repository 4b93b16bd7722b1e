import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NbError } from "../../src/core/errors.js";
import { describeDelete, hardDelete } from "../../src/plot/delete.js";
import {
  getStoryTree,
  listPhases,
  listThreads,
  type PlotContext,
  plotContext,
  savePhase,
  saveThread,
} from "../../src/plot/index.js";
import { plotFixture } from "./tool-fixture.js";

let f: ReturnType<typeof plotFixture>;
let pc: PlotContext;
beforeEach(() => {
  f = plotFixture();
  pc = plotContext(f.project, "user");
});
afterEach(() => f.cleanup());

const add = (name: string, extra: Record<string, unknown> = {}) =>
  savePhase(pc, { action: "create", name, title: name.toUpperCase(), ...extra }).id;
const order = (opts: { includeArchived?: boolean } = {}) =>
  listPhases(pc, opts).map((p) => [p.name, p.sortOrder]);

/** The NbError a call throws. */
function errorOf(call: () => unknown): NbError {
  try {
    call();
  } catch (e) {
    if (e instanceof NbError) return e;
    throw e;
  }
  throw new Error("expected an NbError");
}

describe("the phase service", () => {
  it("creates phases in order, places them before/after others and keeps the order contiguous", () => {
    const a = add("a");
    const b = add("b", { summary: "the middle" });
    add("c", { order: { before: a } });
    expect(order()).toEqual([
      ["c", 0],
      ["a", 1],
      ["b", 2],
    ]);
    savePhase(pc, { action: "update", phaseId: a, order: { after: b } });
    expect(order()).toEqual([
      ["c", 0],
      ["b", 1],
      ["a", 2],
    ]);
    const changed = savePhase(pc, { action: "update", phaseId: b, title: "Middle", summary: "new" });
    expect(changed).toMatchObject({ id: b, name: "b", title: "Middle", summary: "new", status: "active" });
  });

  it("refuses bad input with codes and JSON-Pointer fields", () => {
    const a = add("a");
    const cases: [() => unknown, string, string][] = [
      [() => add("Not A Slug"), "invalid_input", "/name"],
      [() => add("a"), "conflict", "/name"],
      [
        () => savePhase(pc, { action: "create", name: "t", title: "x".repeat(121) }),
        "invalid_input",
        "/title",
      ],
      [() => savePhase(pc, { action: "update", phaseId: 99, title: "x" }), "not_found", "/phaseId"],
      [() => savePhase(pc, { action: "archive", phaseId: a, title: "x" }), "invalid_input", "/title"],
      [() => savePhase(pc, { action: "update" }), "invalid_input", "/phaseId"],
      [() => add("b", { order: { before: 99 } }), "invalid_input", "/order/before"],
      [() => add("b", { order: { before: a, after: a } }), "invalid_input", "/order"],
    ];
    for (const [call, code, pointer] of cases) {
      const e = errorOf(call);
      expect([e.code, e.fields?.map((x) => x.pointer)], pointer).toEqual([code, [pointer]]);
    }
    expect(order()).toEqual([["a", 0]]);
  });

  it("archiving hides the phase and its threads from the list and tree until asked for or un-archived", () => {
    const a = add("a");
    const b = add("b");
    saveThread(pc, { action: "create", name: "kept", title: "Kept", phaseId: a });
    saveThread(pc, { action: "create", name: "hidden", title: "Hidden", phaseId: b });
    expect(savePhase(pc, { action: "archive", phaseId: b }).status).toBe("archived");
    expect(listPhases(pc).map((p) => [p.name, p.threads])).toEqual([["a", 1]]);
    expect(order({ includeArchived: true })).toEqual([
      ["a", 0],
      ["b", 1],
    ]);
    const tree = getStoryTree(pc);
    expect(tree.phases.map((p) => p.name)).toEqual(["a"]);
    expect(tree.ungroupedThreads).toEqual([]);
    expect(tree.totals).toMatchObject({ phases: 1, threads: 1 });
    const all = getStoryTree(pc, { includeArchived: true });
    expect(all.phases.map((p) => [p.name, p.status, p.threads.map((t) => t.name)])).toEqual([
      ["a", "active", ["kept"]],
      ["b", "archived", ["hidden"]],
    ]);
    savePhase(pc, { action: "update", phaseId: b, status: "active" });
    expect(getStoryTree(pc).phases.map((p) => p.name)).toEqual(["a", "b"]);
  });

  it("a hard delete names the threads it ungroups and appends them to the ungrouped ones in order", () => {
    const a = add("a");
    const b = add("b");
    const c = add("c");
    const loose = saveThread(pc, { action: "create", name: "loose", title: "Loose" }).id;
    const first = saveThread(pc, { action: "create", name: "first", title: "First", phaseId: b }).id;
    const second = saveThread(pc, {
      action: "create",
      name: "second",
      title: "Second",
      phaseId: b,
      order: { before: first },
    }).id;
    expect(describeDelete(pc, "phase", b)).toEqual({
      target: `phase ${b} "B"`,
      effects: ["2 thread(s) become ungrouped (kept, with their scenes)"],
    });
    hardDelete(pc, "phase", b);
    expect(listPhases(pc).map((p) => [p.id, p.sortOrder])).toEqual([
      [a, 0],
      [c, 1],
    ]);
    const threads = listThreads(pc, {}).rows.map((t) => [t.id, t.phaseId]);
    expect(threads).toEqual([
      [loose, null],
      [second, null],
      [first, null],
    ]);
    const sortOrders = pc.db
      .prepare("SELECT id, sort_order AS n FROM story_thread WHERE phase_id IS NULL ORDER BY sort_order")
      .all();
    expect(sortOrders).toEqual([
      { id: loose, n: 0 },
      { id: second, n: 1 },
      { id: first, n: 2 },
    ]);
  });
});
