import { z } from "zod";
import { sessionService } from "../control/session.js";
import { defineTool } from "../define.js";

export const getAgentProfile = defineTool({
  key: "get_agent_profile",
  group: "collaboration",
  scope: "session",
  description:
    "Look up an agent profile before you create an agent with it: whether create_agent may use it, its initial and payload schemas (what create_agent's `initial` and invoke_agent's `input` must match), its output schema and its tools.",
  input: z.object({ profileKey: z.string().min(1).describe("the profile, e.g. writer") }).strict(),
  effect: "read",
  execute: (input, ctx) => {
    const collab = sessionService(ctx, "collab", "get_agent_profile");
    const profile = collab.profile(input.profileKey);
    return { text: JSON.stringify(profile, null, 2), details: profile };
  },
});
