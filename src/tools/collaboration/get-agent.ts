import { z } from "zod";
import { sessionService } from "../control/session.js";
import { defineTool } from "../define.js";
import { SessionIdInput } from "./inputs.js";
import type { AgentSummary } from "./service.js";

function line(a: AgentSummary): string {
  const pending = a.pending
    ? ` — waits on ${a.pending.kind} ${a.pending.approvalId} (${a.pending.tool})`
    : "";
  return `#${a.sessionId} ${a.profileKey} [${a.status}, ${a.mode}] ${a.title || "(untitled)"}${pending}`;
}

export const getAgent = defineTool({
  key: "get_agent",
  group: "collaboration",
  scope: "session",
  description:
    "Without sessionId: the agents you created and still hold, with their real status (idle, running, waiting, error). With sessionId: that agent (yours, or a session that created you).",
  input: z.object({ sessionId: SessionIdInput.optional() }).strict(),
  effect: "read",
  execute: (input, ctx) => {
    const collab = sessionService(ctx, "collab", "get_agent");
    if (input.sessionId !== undefined) {
      const agent = collab.agent(input.sessionId);
      return { text: JSON.stringify(agent, null, 2), details: agent };
    }
    const agents = collab.agents();
    return {
      text: agents.length ? agents.map(line).join("\n") : "You hold no agents (create_agent makes one).",
      details: { agents },
    };
  },
});
