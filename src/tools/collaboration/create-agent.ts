import { z } from "zod";
import { sessionService } from "../control/session.js";
import { defineTool } from "../define.js";
import { JsonObjectInput } from "./inputs.js";

export const createAgent = defineTool({
  key: "create_agent",
  group: "collaboration",
  scope: "session",
  ordering: "sequential",
  description:
    "Create a linked agent session with a profile (call get_agent_profile first). `initial` must be a JSON object matching the profile's initial schema; errors name each field by JSON Pointer: fix the object there, never send it as a string. The agent works in your project, never in a more permissive mode than yours, with its own profile's tools. Creating does not run it: call invoke_agent. Create one only when a specialised profile clearly helps (the writer for prose, world.engine for world facts, director for plot).",
  input: z
    .object({
      profileKey: z.string().min(1).describe("the profile, e.g. writer"),
      initial: JsonObjectInput.optional().describe("the profile's initial values, a JSON object"),
      title: z.string().trim().min(1).max(200).optional().describe("a short title for the session"),
    })
    .strict(),
  effect: "read",
  execute: (input, ctx) => {
    const collab = sessionService(ctx, "collab", "create_agent");
    const created = collab.create({
      profileKey: input.profileKey,
      initial: input.initial ?? {},
      ...(input.title ? { title: input.title } : {}),
    });
    return {
      text: `Created agent session ${created.sessionId} (${created.profileKey}). Run it with invoke_agent {sessionId: ${created.sessionId}, message: "…"}.`,
      details: created,
    };
  },
});
