import type { RunRecord } from "../store/index.js";

/** What an activity reports besides its result: the tokens an agent invocation spent. */
export interface ActivityOutcome {
  value: unknown;
  tokens?: number;
}

/** Context of one activity. */
export interface ActivityContext {
  run: RunRecord;
  seq: number;
  signal: AbortSignal;
}

/**
 * Runs the effects of a workflow's activities (agents, files, the world). Throws NbError on
 * failure: the failure is journaled and thrown into the script at that call.
 */
export interface ActivityHost {
  run(kind: string, params: unknown, ctx: ActivityContext): Promise<ActivityOutcome>;
  /** Called once when a run completes: archive its ephemeral participants. */
  completed?(run: RunRecord): Promise<void> | void;
}
