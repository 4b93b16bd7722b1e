import type { Mode } from "../../core/modes.js";
import type { AskAlways, Effect, WriteGrant } from "../types.js";

/**
 * Where a call's write targets lie, as the plan-mode exemption sees them: all (really, on disk)
 * inside the project's `.agent/plan/` as Markdown, or anywhere else — unknown targets included.
 */
export type TargetReach = "plan" | "elsewhere";

/** What the gate does with a prepared call: run it (with what it may write), or ask the user first. */
export type Decision =
  | { kind: "run"; writes: WriteGrant }
  | { kind: "ask"; why: "read-only-mode" | AskAlways };

/**
 * The one decision of the gate, pure: an approved call runs with every write granted; a call that
 * asks in every mode asks; a read runs (granted no writes in a read-only mode); a write runs in
 * normal mode, and in plan mode when every target lies under `.agent/plan/` (held there); any other
 * write in a read-only mode asks.
 */
export function decide(
  mode: Mode,
  effect: Effect,
  reach: TargetReach,
  askAlways: AskAlways | undefined,
  approved: boolean,
): Decision {
  if (approved) return { kind: "run", writes: "any" };
  if (askAlways) return { kind: "ask", why: askAlways };
  if (mode === "normal") return { kind: "run", writes: "any" };
  if (effect === "read") return { kind: "run", writes: "none" };
  if (mode === "plan" && reach === "plan") return { kind: "run", writes: "plan" };
  return { kind: "ask", why: "read-only-mode" };
}
