import { z } from "zod";

/** Session modes: `normal` reads and writes; `discuss` and `plan` are read-only. */
export const ModeSchema = z.enum(["normal", "discuss", "plan"]);
export type Mode = z.infer<typeof ModeSchema>;
export const MODES: readonly Mode[] = ModeSchema.options;

/** True for a read-only mode. */
export function isReadOnlyMode(mode: Mode): boolean {
  return mode !== "normal";
}

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

const FULL: Record<Mode, string> = {
  normal: "The session is now in NORMAL mode: carry out the agreed work.",
  discuss:
    "The session is now in DISCUSS mode (read-only). Talk the work through, read whatever helps, but do not change anything: every write-effect tool call is stopped and needs the user's explicit approval for that one call. If the discussion leads to real work, ask for normal mode with switch_mode.",
  plan: 'The session is now in PLAN mode (read-only). Investigate, then write your proposal as Markdown under .agent/plan/ (for example .agent/plan/<topic>.md) — those writes run without approval; any other write is stopped for the user\'s approval. When the plan is ready, ask to carry it out with switch_mode {mode: "normal"} and a one-line reason.',
};

const HINT: Record<Mode, string> = {
  normal: "Mode: normal (read and write).",
  discuss: "Mode: discuss (read-only; writes need the user's approval per call).",
  plan: "Mode: plan (read-only except Markdown under .agent/plan/; ask switch_mode normal to execute).",
};

/**
 * The mode reminder for the system prompt: the full explanation right after a change (the model
 * has not answered since), a one-line hint afterwards.
 */
export function modeReminder(mode: Mode, changedSinceLastAnswer: boolean): string {
  return changedSinceLastAnswer ? FULL[mode] : HINT[mode];
}
