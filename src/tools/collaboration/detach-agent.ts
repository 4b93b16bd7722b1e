import { z } from "zod";
import { sessionService } from "../control/session.js";
import { defineTool } from "../define.js";
import { SessionIdInput } from "./inputs.js";

export const detachAgent = defineTool({
  key: "detach_agent",
  group: "collaboration",
  scope: "session",
  ordering: "sequential",
  description:
    "Drop your link to an agent you created: it leaves get_agent and you can no longer invoke or read it. The session itself is kept (the user still sees it).",
  input: z.object({ sessionId: SessionIdInput }).strict(),
  effect: "read",
  execute: (input, ctx) => {
    const collab = sessionService(ctx, "collab", "detach_agent");
    const out = collab.detach(input.sessionId);
    return {
      text:
        out.status === "detached"
          ? `Detached agent ${out.sessionId}; its session is kept.`
          : `Agent ${out.sessionId} was already detached.`,
      details: out,
    };
  },
});
