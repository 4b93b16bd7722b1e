import { z } from "zod";
import { defineProfile } from "../define.js";
import { basePrompt } from "./prompt.js";

export const memoryCurator = defineProfile({
  key: "memory.curator",
  name: "Memory curator",
  description: "Turns new facts and a subject's current memories into a JSON Patch of its memory.",
  initial: z
    .object({
      subjectPath: z.string().min(1),
      facts: z.array(z.string()).min(1),
      currentMemories: z.array(
        z.object({ topic: z.string(), aliases: z.array(z.string()).optional(), view: z.string() }).strict(),
      ),
    })
    .strict(),
  output: z
    .object({
      patch: z.array(
        z
          .object({
            op: z.enum(["add", "remove", "replace", "move", "copy", "test"]),
            path: z.string(),
            from: z.string().optional(),
            value: z.unknown().optional(),
          })
          .strict(),
      ),
    })
    .strict(),
  tools: ["report_result"],
  systemPrompt: (ctx) =>
    `${basePrompt("You curate one subject's memory: merge new facts into what it already remembers.", ctx)}

Subject: ${String(ctx.initial.subjectPath ?? "")}
Facts:\n${JSON.stringify(ctx.initial.facts ?? [], null, 2)}
Current memories:\n${JSON.stringify(ctx.initial.currentMemories ?? [], null, 2)}
Answer with a JSON Patch (RFC 6902) over the memories array; keep the subject's point of view.`,
});
