import { z } from "zod";
import { defineProfile } from "../define.js";
import { basePrompt } from "./prompt.js";

export const retrieval = defineProfile({
  key: "retrieval",
  name: "Retrieval",
  description:
    "Finds the lorebook and manuscript entries relevant to a question and returns them as candidates.",
  initial: z.object({ prompt: z.string().min(1) }).strict(),
  output: z
    .object({
      entries: z.array(
        z
          .object({
            path: z.string(),
            reason: z.string(),
            use: z.string().optional(),
            risk: z.string().optional(),
          })
          .strict(),
      ),
      note: z.string().optional(),
    })
    .strict(),
  // bash runs confined (docs/bash.md) and read-only here: retrieval searches, it never changes a file.
  tools: [{ key: "bash", access: "readonly" }, "read", "search", "report_result"],
  skills: "named",
  systemPrompt: (ctx) =>
    `${basePrompt("You are the retrieval agent: you find what the project already says about a topic.", ctx)}

Task: ${String(ctx.initial.prompt ?? "")}
Search lorebook/ and manuscript/ (search, or bash with rg/grep), read the promising files, and return the relevant paths with why each matters. Change no file.`,
});
