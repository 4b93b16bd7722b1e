import { afterEach, describe, expect, it, vi } from "vitest";
import { entryEvents } from "../../src/harness/announce.js";
import type { ScriptedTurn } from "../../src/models/index.js";
import { type HarnessFixture, harnessFixture } from "../harness-fixture.js";

let fx: HarnessFixture;
afterEach(() => {
  vi.restoreAllMocks();
  fx?.close();
});

/** A run of `steps` task calls, then a closing answer. */
function taskSteps(steps: number): ScriptedTurn[] {
  return [
    ...Array.from({ length: steps }, (_, i) => ({
      toolCalls: [{ name: "task_create", input: { title: `step ${i + 1}` } }],
    })),
    { text: "Done." },
  ];
}

/** How often one invocation reads the session, its profile and its project. */
async function readsOfOneInvocation(steps: number) {
  fx = harnessFixture(taskSteps(steps));
  const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
  const catalog = fx.harness.catalog;
  const reads = {
    session: vi.spyOn(fx.store, "session"),
    profile: vi.spyOn(catalog, "get"),
    allowlist: vi.spyOn(catalog, "allowlist"),
    project: vi.spyOn(fx.workspace, "project"),
  };
  const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "Plan it" });
  expect(r).toMatchObject({ status: "completed", steps: steps + 1 });
  const counts = Object.fromEntries(Object.entries(reads).map(([k, spy]) => [k, spy.mock.calls.length]));
  fx.close();
  return counts;
}

describe("run context", () => {
  it("is built once per invocation: the session, profile and project are read a fixed number of times however many steps run", async () => {
    const one = await readsOfOneInvocation(1);
    const four = await readsOfOneInvocation(4);
    expect(four).toEqual(one);
    // invoke checks the session, then the run context reads it, its profile (the allowlist reads it
    // again) and project; building the prompt once more reads the project (its AGENTS.md).
    expect(one).toEqual({ session: 2, profile: 2, allowlist: 1, project: 2 });
  });
});

describe("bus events", () => {
  it("are the committed entries' events, in their order, across runs, a mode change and an error", async () => {
    fx = harnessFixture(
      [
        ...taskSteps(2),
        { toolCalls: [{ name: "task_set_status", input: { id: "t1", status: "in_progress" } }] },
        { text: "Next." },
      ],
      { settings: { maxRetries: 0 } },
    );
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    await fx.harness.invoke(s.id, { mode: "prompt", message: "Plan it" });
    expect(fx.harness.setMode(s.id, "discuss")).toBe(true);
    await fx.harness.invoke(s.id, { mode: "prompt", message: "Go on" });
    fx.script([{ error: "the provider is down" }]);
    await fx.harness.invoke(s.id, { mode: "prompt", message: "Again" });

    const recorded = new Set(["run_start", "run_end", "error", "task_list_changed", "mode_changed"]);
    const announced = fx.events.filter((e) => recorded.has(e.type));
    const fromEntries = fx.store.activePath(s.id).flatMap((e) => entryEvents(s.id, e));
    expect(announced).toEqual(fromEntries);
    expect(announced.map((e) => e.type)).toEqual([
      "run_start",
      "task_list_changed",
      "task_list_changed",
      "run_end",
      "mode_changed",
      "run_start",
      "task_list_changed",
      "run_end",
      "run_start",
      "error",
      "run_end",
    ]);
  });
});
