import type { RunRecord } from "../store/index.js";

/** What one tool call of a run asks for: the tool's key and its input. */
export interface ToolCallRequest {
  name: string;
  input: unknown;
}

/** What a tool call that ran returns to the script. */
export interface ToolCallOutcome {
  text: string;
  details: unknown;
  truncated: boolean;
}

/**
 * How a workflow runs one agent tool without a model: through the call pipeline every door uses,
 * as the run's caller (the user, or the agent session that started it, with its profile's
 * allowlist), in the run's mode, recorded in the project's history. Throws NbError when the call
 * is refused, needs an approval or fails.
 */
export interface ToolPort {
  call(run: RunRecord, seq: number, req: ToolCallRequest, signal: AbortSignal): Promise<ToolCallOutcome>;
}
