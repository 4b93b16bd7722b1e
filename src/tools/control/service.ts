import type { Mode } from "../../core/modes.js";
import type { ToolResult } from "../types.js";

/** The user's answer to a paused call (an approval or a question). */
export interface ControlResolution {
  approved: boolean;
  reason?: string;
  answer?: string;
}

/**
 * What `switch_mode` and `request_user_input` need from the harness, bound to one call.
 * A call runs twice: first without a resolution (it suspends), then with the user's answer
 * (it produces the real result). One path, the tool's own executor, builds every result.
 */
export interface ControlService {
  readonly mode: Mode;
  /** The user's answer when this call resumes after a pause; null on the first run. */
  readonly resolution: ControlResolution | null;
  /** Pause the run until the user answers; `preview` is what the user is shown. */
  suspend(kind: "switch_mode" | "user_input", preview: string): ToolResult;
  /** Change the session's mode (only after the user approved). */
  switchMode(mode: Mode, reason: string): void;
}
