import { z } from "zod";
import { MemoryPatchSchema } from "../../memory/curate-schema.js";
import { defineProfile } from "../define.js";
import type { PromptContext } from "../types.js";
import { scopedPrompt } from "./prompt.js";

const CurrentMemory = z
  .object({ topic: z.string(), view: z.string(), aliases: z.array(z.string()).optional() })
  .strict();

/** The memories as the curator reads them: one line per array index, so a patch path names the right one. */
function indexedMemories(ctx: PromptContext): string {
  const list = (ctx.initial.currentMemories ?? []) as z.infer<typeof CurrentMemory>[];
  if (!list.length) return "(none yet: add each topic at /-)";
  return list.map((m, i) => `/${i} ${JSON.stringify(m)}`).join("\n");
}

export const memoryCurator = defineProfile({
  key: "memory.curator",
  name: "Memory curator",
  description:
    "Merges new facts into one subject's memory.jsonl as a JSON Patch (internal: run only by subject_memory_update).",
  // Run only by subject_memory_update, which validates its patch; no agent or user starts it directly.
  creation: "system_only",
  initial: z
    .object({
      subjectPath: z.string().min(1),
      facts: z.array(z.string()).min(1),
      currentMemories: z.array(CurrentMemory),
    })
    .strict(),
  output: z.object({ patch: MemoryPatchSchema }).strict(),
  tools: ["report_result"],
  systemPrompt: (ctx) =>
    `${scopedPrompt("You curate one subject's memory: fold the facts it has just learned into what it believes.", ctx)}

Subject: ${String(ctx.initial.subjectPath ?? "")}

An entry is {"topic", "view", "aliases"?}: one per person, place, thing or idea as the subject now names it; the view (never empty) is what it thinks, feels, suspects or has wrong; aliases are older or vaguer short names, never explanations.

Rules:
- Only what the subject knows, as it understands it: a hidden truth once it was told, saw or could infer it.
- Passing feelings, plans and one-off happenings are events, not topics: if no lasting view changes, return an empty patch.
- A relationship goes into the other person's topic, never "my relationship with X".
- Two names for one entity: merge into one topic with the stable parts of both views, the old name as an alias.
- Replace a whole view rather than patch fragments. Write in the language of the memories and facts.

Facts from this turn:
${(ctx.initial.facts as string[] | undefined)?.map((f) => `- ${f}`).join("\n") ?? ""}

Current memories (the array your patch applies to, by index):
${indexedMemories(ctx)}

Call report_result once: \`result\`, a sentence or two on what changed and why; \`data.patch\`, an RFC 6902 JSON Patch over that array, applied in order (remove higher indices first). Before each change to an existing entry, "test" its topic: {"op":"test","path":"/1/topic","value":"the baker"}, then {"op":"replace","path":"/1/view","value":"…"}. Add at "/-"; to merge /3 into /0, test and remove /3, test and replace /0.`,
});
