import { z } from "zod";
import { defineProfile } from "../define.js";
import { basePrompt } from "./prompt.js";

export const inlineEditor = defineProfile({
  key: "inline.editor",
  name: "Inline editor",
  description:
    "A short edit launched from an editor selection (rewrite, polish, expand, condense, continue).",
  payload: z
    .object({
      version: z.literal(1),
      task: z.enum(["chat", "rewrite", "polish", "expand", "condense", "continue_after", "bridge"]),
      targetPath: z.string().min(1),
      instruction: z.string(),
      references: z.array(
        z
          .object({
            ref: z.string(),
            path: z.string(),
            range: z
              .object({ startLine: z.number().int().min(1), endLine: z.number().int().min(1) })
              .strict()
              .optional(),
            match: z.enum(["unique", "ambiguous", "unknown"]),
            text: z.string(),
          })
          .strict(),
      ),
    })
    .strict(),
  output: z.object({}).strict(),
  // One target file (payload.targetPath): dispatch refuses writes to any other.
  tools: [
    "read",
    "search",
    { key: "edit", target: "targetPath" },
    { key: "write", target: "targetPath" },
    "report_result",
  ],
  skills: "named",
  systemPrompt: (ctx) =>
    `${basePrompt("You are the inline editor: you make one precise change to a selected passage.", ctx)}

Change only what the instruction asks, in the target file, with edit. Keep the author's voice.`,
});
