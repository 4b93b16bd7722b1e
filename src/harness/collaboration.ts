import type { Mode } from "../core/modes.js";
import type { CollaborationService } from "../tools/collaboration/service.js";
import type { Harness } from "./loop.js";
import type { InvocationCaller, RunResult } from "./types.js";

/**
 * Agent collaboration as the harness is opened with it. The harness knows collaboration only
 * through this: whoever opens it (nbook's opener, a test) passes the plugin in.
 */
export interface Collaboration {
  /** The collaboration service for one call of agent session `callerId` running in `mode`. */
  service(callerId: string, callId: string, mode: Mode): CollaborationService;
  /**
   * A child whose invoking call got `waiting` back has ended the run the user's answer continued:
   * its caller learns the outcome only this way.
   */
  childEnded(caller: InvocationCaller, childId: string, approvalId: string, result: RunResult): void;
}

/** Builds the collaboration of one harness. */
export type CollaborationPlugin = (harness: Harness) => Collaboration;
