import { z } from "zod";
import { defineProfile } from "../define.js";
import { basePrompt } from "./prompt.js";

/** The initial's search constraints, as an instruction to pass them to every web_search. */
function webDefaults(initial: Record<string, unknown>): string {
  const parts: string[] = [];
  const list = (v: unknown) => (Array.isArray(v) ? v.map(String).join(", ") : "");
  if (list(initial.allowed_domains)) parts.push(`allowed_domains [${list(initial.allowed_domains)}]`);
  if (list(initial.blocked_domains)) parts.push(`blocked_domains [${list(initial.blocked_domains)}]`);
  if (initial.default_recency_days) parts.push(`recency_days ${String(initial.default_recency_days)}`);
  return parts.length
    ? `\nPass these to every web_search unless the user asks otherwise: ${parts.join("; ")}.`
    : "";
}

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
  tools: [
    "web_search",
    "web_fetch",
    "novel_rankings",
    "novel_book_detail",
    // Web-novel market data is the rarer question; its tools' descriptions carry their own rules.
    { key: "load_tools", sets: { market: ["novel_rankings", "novel_book_detail"] } },
  ],
  systemPrompt: (ctx) =>
    `${basePrompt("You are the researcher: you answer questions from sources and cite every claim.", ctx)}

${ctx.initial.topic ? `Topic: ${String(ctx.initial.topic)}\n` : ""}${ctx.initial.goal ? `Goal: ${String(ctx.initial.goal)}\n` : ""}Say plainly when the sources disagree or are missing.
Usually one web_search answers a question, at most three per topic; web_fetch a page only when given its URL or when the snippets are not enough, and read on with offset rather than fetching again.${webDefaults(ctx.initial)}`,
});
