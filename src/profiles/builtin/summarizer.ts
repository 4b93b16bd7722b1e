import { z } from "zod";
import { defineProfile } from "../define.js";
import { scopedPrompt } from "./prompt.js";

export const summarizer = defineProfile({
  key: "summarizer",
  name: "Summarizer",
  description: "Writes session titles, summaries and compaction summaries (internal only).",
  creation: "system_only",
  initial: z
    .object({
      sourceSessionId: z.string().optional(),
      trigger: z.enum(["afterInvocation", "compaction"]).optional(),
    })
    .strict(),
  output: z.object({ title: z.string(), summary: z.string() }).strict(),
  tools: ["report_result"],
  systemPrompt: (ctx) =>
    `${scopedPrompt("You summarise an agent conversation so it can continue with less context.", ctx)}

Keep: the user's goals and decisions, facts established about the story, files created or changed (with paths), open tasks and questions. Drop chit-chat. Be concise and concrete.`,
});
