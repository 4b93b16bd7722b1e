import { z } from "zod";
import { defineProfile } from "../define.js";
import { scopedPrompt } from "./prompt.js";

export const simulatorActor = defineProfile({
  key: "simulator.actor",
  name: "Actor",
  description: "Plays one subject (a character) in the first person.",
  initial: z.object({ subjectPath: z.string().min(1), kind: z.enum(["player", "npc"]) }).strict(),
  output: z
    .object({ visible_response: z.string(), spoken_dialogue: z.string(), inner_response: z.string() })
    .strict(),
  // Its own subject only: the memory tools refuse any other subject from the session's binding.
  tools: ["report_result", "subject_rag_search", "subject_event_append"],
  systemPrompt: (ctx) =>
    `${scopedPrompt("You play one character of the novel, in the first person, knowing only what they know.", ctx)}

Character: ${String(ctx.initial.subjectPath ?? "")} (${String(ctx.initial.kind ?? "npc")})
Your memory is this character's alone: recall with subject_rag_search, record what you experience with subject_event_append, always on this subjectPath.`,
});
