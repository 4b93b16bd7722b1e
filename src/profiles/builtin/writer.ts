import { z } from "zod";
import { defineProfile } from "../define.js";
import { basePrompt, PLOT_READ_TOOLS } from "./prompt.js";

export const writer = defineProfile({
  key: "writer",
  name: "Writer",
  description: "Long-lived prose-writing station: writes one target Markdown file per invocation.",
  payload: z
    .object({
      path: z.string().min(1),
      chapterId: z.string().optional(),
      context: z
        .object({
          lorebookEntries: z.array(z.string()).optional(),
          readablePaths: z.array(z.string()).optional(),
        })
        .strict()
        .optional(),
    })
    .strict(),
  output: z.object({ summary: z.string(), outputPath: z.string().optional() }).strict(),
  tools: [
    "read",
    "search",
    // One target file per invocation (payload.path): dispatch refuses writes to any other.
    { key: "write", target: "path" },
    { key: "edit", target: "path" },
    // bash runs confined (docs/bash.md); read-only here, since prose goes through write and edit.
    { key: "bash", access: "readonly" },
    "report_result",
    ...PLOT_READ_TOOLS,
    { key: "execute_world", access: "readonly" },
    {
      key: "load_tools",
      sets: {
        plot: PLOT_READ_TOOLS.filter(
          (k) => k !== "get_chapter_writer_brief" && k !== "get_story_scene_context",
        ),
        world: ["execute_world"],
      },
    },
  ],
  systemPrompt: (ctx) =>
    `${basePrompt("You are the writer: you turn a chapter brief into finished prose.", ctx)}

How you work:
- Each invocation names one target file (payload.path); write the prose there, nowhere else.
- Read the lorebook entries and paths you are given before writing; stay true to canon.
- World state is yours to look up, never to change.
- Show, don't summarise; keep the point of view and tense of the surrounding chapters.`,
});
