import { z } from "zod";
import { MemoryPatchSchema } from "../../memory/curate-schema.js";
import { defineProfile } from "../define.js";
import type { PromptContext } from "../types.js";
import { basePrompt } from "./prompt.js";

const CurrentMemory = z
  .object({ topic: z.string(), view: z.string(), aliases: z.array(z.string()).optional() })
  .strict();

/** The memories as the curator reads them: one line per array index, so a patch path names the right one. */
function indexedMemories(ctx: PromptContext): string {
  const list = (ctx.initial.currentMemories ?? []) as z.infer<typeof CurrentMemory>[];
  if (!list.length) return "(none yet: the list is empty, so every new topic is added at /-)";
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
    `${basePrompt("You curate one subject's memory: you fold the facts it has just learned into what it currently believes.", ctx)}

Subject: ${String(ctx.initial.subjectPath ?? "")}

What memory is: one entry per topic — a person, place, thing or idea as this subject currently names it — with the subject's present view of it (what it thinks, feels, suspects, has misunderstood or has corrected) and optional aliases (older or vaguer names it used before). An entry is {"topic", "view", "aliases"?}; topics are unique; views are never empty.

Rules:
- Write only what this subject knows, in its own understanding. A hidden truth the author knows enters memory only once the subject has been told it, has seen it, or could reasonably infer it.
- Short-lived feelings, plans and one-off happenings belong to the subject's events, not to new topics. If the facts only add experience and change no lasting view, return an empty patch.
- Fold a relationship into the other person's topic; never create a topic like "my relationship with X".
- When two names turn out to be the same entity, merge them into one topic: keep the stable parts of both views and put the old name in aliases. Aliases are short names, never explanations, and never the topic itself.
- Prefer replacing a view with a complete new view over patching fragments of it.
- Write in the language of the existing memories and the facts.

Facts from this turn:
${(ctx.initial.facts as string[] | undefined)?.map((f) => `- ${f}`).join("\n") ?? ""}

Current memories (the array your patch applies to; the number is the array index):
${indexedMemories(ctx)}

Answer by calling report_result once: \`result\` is one or two sentences for a human on what changed and why; \`data\` is {"patch": [...]}, an RFC 6902 JSON Patch over the array above. Paths use array indices ("/2/view", "/0/aliases", "/-" to add at the end); operations apply in order, so after a remove the later indices shift down — remove higher indices first. Guard every change to an existing entry with a "test" of its topic just before it: a wrong index then fails instead of changing another topic. Examples:
- change a view: {"op":"test","path":"/1/topic","value":"the baker"} then {"op":"replace","path":"/1/view","value":"…"}
- add a topic: {"op":"add","path":"/-","value":{"topic":"…","view":"…"}}
- merge /3 into /0: {"op":"test","path":"/3/topic","value":"…"}, {"op":"remove","path":"/3"}, {"op":"test","path":"/0/topic","value":"…"}, {"op":"replace","path":"/0","value":{"topic":"…","view":"…","aliases":["…"]}}
- nothing to change: {"patch": []}`,
});
