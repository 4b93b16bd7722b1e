import { describe, expect, it } from "vitest";
import { MODES } from "../../src/core/modes.js";
import { type Decision, decide, type TargetReach } from "../../src/tools/pipeline/decide.js";
import type { AskAlways, Effect } from "../../src/tools/types.js";

const EFFECTS: Effect[] = ["read", "write"];
const REACHES: TargetReach[] = ["plan", "elsewhere"];
const ASK_ALWAYS: (AskAlways | undefined)[] = [undefined, "unconfined", "spends-budget"];

/** The gate's rules, spelled out case by case as the docs state them. */
function expected(
  mode: string,
  effect: Effect,
  reach: TargetReach,
  askAlways: AskAlways | undefined,
  approved: boolean,
): Decision {
  if (approved) return { kind: "run", writes: "any" };
  if (askAlways !== undefined) return { kind: "ask", why: askAlways };
  if (mode === "normal") return { kind: "run", writes: "any" };
  if (effect === "read") return { kind: "run", writes: "none" };
  if (mode === "plan" && reach === "plan") return { kind: "run", writes: "plan" };
  return { kind: "ask", why: "read-only-mode" };
}

describe("decide: the one decision of the gate", () => {
  it("covers every combination of mode, effect, target reach, ask-always reason and approval", () => {
    let n = 0;
    for (const mode of MODES)
      for (const effect of EFFECTS)
        for (const reach of REACHES)
          for (const askAlways of ASK_ALWAYS)
            for (const approved of [false, true]) {
              const label = JSON.stringify({ mode, effect, reach, askAlways, approved });
              expect(decide(mode, effect, reach, askAlways, approved), label).toEqual(
                expected(mode, effect, reach, askAlways, approved),
              );
              n++;
            }
    expect(n).toBe(3 * 2 * 2 * 3 * 2);
  });

  it("states the rules that matter for safety", () => {
    // A write in a read-only mode never runs unasked unless plan mode's exemption covers every target.
    expect(decide("discuss", "write", "plan", undefined, false)).toEqual({
      kind: "ask",
      why: "read-only-mode",
    });
    expect(decide("plan", "write", "elsewhere", undefined, false)).toEqual({
      kind: "ask",
      why: "read-only-mode",
    });
    expect(decide("plan", "write", "plan", undefined, false)).toEqual({ kind: "run", writes: "plan" });
    // A read in a read-only mode runs, granted no writes.
    expect(decide("plan", "read", "elsewhere", undefined, false)).toEqual({ kind: "run", writes: "none" });
    // Unconfined bash and workflow runs ask in normal mode too, even for a read.
    expect(decide("normal", "write", "elsewhere", "unconfined", false)).toEqual({
      kind: "ask",
      why: "unconfined",
    });
    expect(decide("normal", "read", "elsewhere", "spends-budget", false)).toEqual({
      kind: "ask",
      why: "spends-budget",
    });
    // The user's approval runs the call with every write granted.
    expect(decide("discuss", "write", "elsewhere", "unconfined", true)).toEqual({
      kind: "run",
      writes: "any",
    });
  });
});
