import { z } from "zod";
import { defineProfile } from "../define.js";
import { basePrompt } from "./prompt.js";

export const adhoc = defineProfile({
  key: "adhoc",
  name: "Ad-hoc agent",
  description: "A throwaway agent defined by a prompt, mainly for workflows.",
  initial: z
    .object({
      name: z.string().optional(),
      systemPrompt: z.string().min(1),
      outputSchema: z.record(z.string(), z.unknown()).optional(),
    })
    .strict(),
  tools: ["read", "report_result"],
  systemPrompt: (ctx) => `${basePrompt(String(ctx.initial.systemPrompt ?? "You are a helpful agent."), ctx)}`,
});
