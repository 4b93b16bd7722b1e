import type { Collaboration, CollaborationPlugin } from "../harness/collaboration.js";
import type { Harness } from "../harness/loop.js";
import type { InvocationCaller, RunResult } from "../harness/types.js";
import { type Deliver, followUpDelivery } from "../jobs/flow-back.js";
import { FLOW_BACK_WHOLE_MAX, untrusted } from "../jobs/reminder.js";
import { relationOf } from "./ownership.js";
import { AgentCollaboration } from "./service.js";

/** What a child's result tells the agent that invoked it, fenced: it may carry whatever the child read. */
function childResultText(
  harness: Harness,
  caller: InvocationCaller,
  childId: string,
  result: RunResult,
): string {
  const child = harness.store.session(childId);
  const final = result.finalMessage || "(none)";
  const more =
    final.length > FLOW_BACK_WHOLE_MAX
      ? `\n[${final.length - FLOW_BACK_WHOLE_MAX} more characters of its final message: get_session {"sessionId": ${childId}, "includeRecentMessages": true} or invoke it to ask]`
      : "";
  const data = result.data === undefined ? "" : `\nData: ${JSON.stringify(result.data)}`;
  const error = result.error ? `Error: ${result.error.message}\n` : "";
  const output = `${error}Final message: ${final.slice(0, FLOW_BACK_WHOLE_MAX)}${data}`;
  return `Agent ${childId} (${child.profileKey}), which was waiting for the user when your invoke_agent call ${caller.callId} returned, has finished with status ${result.status}.\n${untrusted("What it reported", "agent-output", output)}${more}`;
}

/**
 * Agent collaboration (invoke_agent and the rest) for a harness. A child's result reaches its
 * caller through `deliver`; by default as a system follow-up through the harness's job table,
 * starting the caller's turn when it is idle.
 */
export function agentCollaboration(opts: { deliver?: Deliver } = {}): CollaborationPlugin {
  return (harness): Collaboration => {
    const deliver = opts.deliver ?? followUpDelivery(harness.store.jobs, (id) => harness.runQueued(id));
    return {
      service: (callerId, callId, mode) => new AgentCollaboration(harness, callerId, callId, mode),
      childEnded: (caller, childId, approvalId, result) => {
        // A caller that has since detached the agent (or lost its link) has given up on its result.
        if (relationOf(harness.store, caller.sessionId, childId) === null) return;
        deliver(
          caller.sessionId,
          `agent-result:${childId}:${approvalId}`,
          childResultText(harness, caller, childId, result),
        );
      },
    };
  };
}
