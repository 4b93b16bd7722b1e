import { z } from "zod";
import { sessionService } from "../control/session.js";
import { defineTool } from "../define.js";
import { JsonObjectInput, SessionIdInput } from "./inputs.js";
import type { AgentInvocationResult } from "./service.js";

/** The text the calling model reads: the child's answer, or what happened instead and what to do. */
function resultText(r: AgentInvocationResult): string {
  const who = `Agent ${r.sessionId}`;
  // First, so that it survives the cap on a tool result's text.
  const omitted = r.finalMessageOmittedBytes
    ? `[The agent's final message was clipped at 64 KiB: ${r.finalMessageOmittedBytes} more bytes were cut; get_session ${r.sessionId} shows the session.]\n`
    : "";
  switch (r.status) {
    case "completed":
      return omitted + (r.finalMessage || `${who} finished without a message.`);
    case "waiting":
      return `${who} is waiting for the user (${r.pending?.kind === "user_input" ? "a question" : `approval of ${r.pending?.tool ?? "a call"}`}, id ${r.approvalId}). The user settles it (nbook approve ${r.sessionId} ${r.approvalId}, or in nbook chat); the agent's result then comes back to you as a message. Do not invoke it again meanwhile.`;
    case "queued":
      return `${who} is busy; your input was queued and runs after its current invocation.`;
    case "started":
      return `Background invocation started as job ${r.jobId}; the result comes back to you as a later message. End this turn normally; do not poll.`;
    default:
      return `${omitted}${who} stopped (${r.status})${r.error ? `: ${r.error.message}` : ""}${r.finalMessage ? `\nLast message: ${r.finalMessage}` : ""}`;
  }
}

export const invokeAgent = defineTool({
  key: "invoke_agent",
  group: "collaboration",
  scope: "session",
  description:
    "Call an agent session you created (create_agent) and get its result. mode: prompt (default with a message or input), continue (default without: resume where it stopped; no message or input), followup (queue after its running invocation), steer (shown to its running invocation before its next step). `input` is this turn's payload, a JSON object matching the profile's payload schema. `model` must be one the config makes visible to agents, and applies to this call only. If the agent needs the user (an approval or a question), you get status \"waiting\": the user settles it and the result comes back to you later as a message. background: true returns at once and the result comes back as a later message.",
  input: z
    .object({
      sessionId: SessionIdInput.describe("the agent's session id (from create_agent or get_agent)"),
      mode: z.enum(["prompt", "continue", "steer", "followup"]).optional(),
      message: z.string().min(1).max(200_000).optional().describe("what you ask, in plain language"),
      input: JsonObjectInput.optional().describe("this turn's payload, a JSON object"),
      title: z.string().trim().min(1).max(200).optional().describe("a new title for the agent's session"),
      model: z.string().min(1).optional().describe("<provider>/<model> for this call only"),
      background: z.boolean().optional().describe("run as a background job; the result comes back later"),
    })
    .strict(),
  effect: "read",
  execute: async (input, ctx) => {
    const collab = sessionService(ctx, "collab", "invoke_agent");
    const result = await collab.invoke(input, ctx.signal);
    return { text: resultText(result), details: result };
  },
});
