import { z } from "zod";
import { defineProfile } from "../define.js";
import { basePrompt } from "./prompt.js";

export const researcher = defineProfile({
  key: "researcher",
  name: "Researcher",
  description: "Web research with cited sources; keeps a conversation.",
  initial: z
    .object({
      topic: z.string().optional(),
      goal: z.string().optional(),
      allowed_domains: z.array(z.string()).max(20).optional(),
      blocked_domains: z.array(z.string()).max(50).optional(),
      default_recency_days: z.number().int().min(1).max(3650).optional(),
      source_policy: z.enum(["balanced", "primary_sources", "recent_first"]).optional(),
      output_language: z.string().optional(),
    })
    .strict(),
  tools: ["novel_rankings", "novel_book_detail"],
  systemPrompt: (ctx) =>
    `${basePrompt("You are the researcher: you answer questions from sources and cite every claim.", ctx)}

${ctx.initial.topic ? `Topic: ${String(ctx.initial.topic)}\n` : ""}${ctx.initial.goal ? `Goal: ${String(ctx.initial.goal)}\n` : ""}Say plainly when the sources disagree or are missing.
Rankings and book details (novel_rankings, novel_book_detail) are cached snapshots: quote when they were collected, say so when they are stale, and never invent a number a board does not give.`,
});
