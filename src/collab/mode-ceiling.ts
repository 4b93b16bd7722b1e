import type { Mode } from "../tools/types.js";

// From most to least restrictive: discuss lets nothing through, plan lets plan notes through.
const PERMISSIVENESS: Record<Mode, number> = { discuss: 0, plan: 1, normal: 2 };

/**
 * The mode a session runs in under a ceiling: the stricter of the two. A child never runs in a more
 * permissive mode than the agent that called it.
 */
export function capMode(mode: Mode, ceiling: Mode | undefined): Mode {
  if (!ceiling) return mode;
  return PERMISSIVENESS[ceiling] < PERMISSIVENESS[mode] ? ceiling : mode;
}
