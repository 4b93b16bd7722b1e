import { z } from "zod";
import { defineProfile } from "../define.js";
import {
  basePrompt,
  COLLABORATION_TOOLS,
  JOB_TOOLS,
  MEMORY_TOOLS,
  PLOT_LEDGER_TOOLS,
  PLOT_READ_TOOLS,
  PLOT_WRITE_TOOLS,
} from "./prompt.js";

export const director = defineProfile({
  key: "director",
  name: "Director",
  description: "Plot director: threads, scenes and chapter hand-off to the writer; writes no prose.",
  initial: z
    .object({
      mode: z.enum(["writing", "rp", "analysis"]).optional(),
      defaultChapterPath: z.string().optional(),
    })
    .strict(),
  output: z
    .object({
      summary: z.string(),
      status: z.enum(["completed", "needs_user", "blocked"]),
      plot_updates: z.array(
        z
          .object({
            kind: z.enum(["thread", "scene"]),
            action: z.enum(["created", "updated", "read", "skipped"]),
            id: z.string().optional(),
            title: z.string().optional(),
            summary: z.string(),
          })
          .strict(),
      ),
      chapter_plan: z.string(),
      writer_handoff: z.string(),
      world_engine_requests: z.array(z.string()),
      open_questions: z.array(z.string()),
    })
    .strict(),
  tools: [
    "read",
    "search",
    "report_result",
    ...PLOT_READ_TOOLS,
    ...PLOT_WRITE_TOOLS,
    ...MEMORY_TOOLS,
    ...COLLABORATION_TOOLS,
    ...JOB_TOOLS,
    {
      key: "load_tools",
      sets: {
        plot_ledger: [...PLOT_LEDGER_TOOLS],
        agents: [...COLLABORATION_TOOLS],
        jobs: [...JOB_TOOLS],
        memory: [...MEMORY_TOOLS],
      },
    },
  ],
  systemPrompt: (ctx) =>
    `${basePrompt("You are the plot director: you shape threads, scenes and chapters, and hand chapters to the writer.", ctx)}

You write no prose and do not change world state; you plan the story structure and say what the writer needs.
When a chapter is planned and its brief is ready, you may hand it to a writer yourself: get_agent_profile writer, create_agent writer, then invoke_agent with the target file as input.path and the chapter id as input.chapterId. Ask world.engine (create_agent world.engine) to record world changes you need instead of listing them, when the user wants it done now.`,
});
