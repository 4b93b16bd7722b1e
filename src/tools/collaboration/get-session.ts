import { z } from "zod";
import { sessionService } from "../control/session.js";
import { defineTool } from "../define.js";
import { SessionIdInput } from "./inputs.js";

export const getSession = defineTool({
  key: "get_session",
  group: "collaboration",
  scope: "session",
  description:
    "Metadata of a session: yours (omit sessionId; never guess an id), an agent you created, or one that created you. With includeRecentMessages, the last messages of its active branch, within tokenBudget.",
  input: z
    .object({
      sessionId: SessionIdInput.optional(),
      includeRecentMessages: z.boolean().default(false),
      recentMessageLimit: z.number().int().min(1).max(10).default(3),
      recentMessageRoles: z
        .array(z.enum(["user", "assistant", "toolResult"]))
        .min(1)
        .refine((r) => new Set(r).size === r.length, "roles must be unique")
        .optional(),
      tokenBudget: z.number().int().min(100).max(3000).default(1200),
    })
    .strict(),
  effect: "read",
  execute: (input, ctx) => {
    const collab = sessionService(ctx, "collab", "get_session");
    const view = collab.session(input);
    return { text: JSON.stringify(view, null, 2), details: view };
  },
});
