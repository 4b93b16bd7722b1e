import { z } from "zod";
import { defineProfile } from "../define.js";
import {
  basePrompt,
  COLLABORATION_TOOLS,
  delegationGuide,
  JOB_TOOLS,
  jobsGuide,
  MEMORY_TOOLS,
  PLOT_LEDGER_TOOLS,
  PLOT_READ_TOOLS,
  PLOT_WRITE_TOOLS,
} from "./prompt.js";

export const leaderDefault = defineProfile({
  key: "leader.default",
  name: "Leader",
  description:
    "Main entry and coordinator for a novel project: files, plot, World Engine, and delegating to the writer (prose), world.engine (world facts), director (plot), retrieval and researcher agents.",
  output: z.object({ result: z.string().optional() }).strict(),
  tools: [
    "read",
    "search",
    "write",
    "edit",
    "apply_patch",
    "bash",
    "request_user_input",
    "switch_mode",
    "task_create",
    "task_set_status",
    "execute_sql",
    ...PLOT_READ_TOOLS,
    ...PLOT_WRITE_TOOLS,
    { key: "execute_world", access: "readwrite" },
    "novel_rankings",
    "novel_book_detail",
    ...MEMORY_TOOLS,
    ...COLLABORATION_TOOLS,
    ...JOB_TOOLS,
    "list_workflows",
    "run_workflow",
    {
      key: "load_tools",
      sets: {
        plot_ledger: [...PLOT_LEDGER_TOOLS],
        plot_write: PLOT_WRITE_TOOLS.filter((k) => !PLOT_LEDGER_TOOLS.some((l) => l === k)),
        jobs: [...JOB_TOOLS],
        workflows: ["list_workflows", "run_workflow"],
        market: ["novel_rankings", "novel_book_detail"],
        memory: [...MEMORY_TOOLS],
        sql: ["execute_sql"],
      },
    },
  ],
  systemPrompt: (ctx) =>
    `${basePrompt("You are the leader agent of NeuroBook, helping a person write a long novel.", ctx)}

How you work:
- Read before you write: check the lorebook and the manuscript before changing canon or prose.
- Change files with write / edit / apply_patch; search with bash (rg). Never chain risky shell writes instead of the file tools.
- Keep canon consistent: stable facts go to lorebook/, prose to manuscript/.
- State that changes as the story moves (who is where, who knows what, wounds, possessions) lives in the World Engine: read and record it with execute_world, several changes at one moment in one slice.
- The story's structure (acts, chapters and their briefs, threads, scenes, reader promises, decisions) lives in the plot tools: get_story_* to read (omit the id to list), save_story_* with an action to change. Before a chapter is drafted, get_chapter_writer_brief says what it needs.
- execute_sql is for ad-hoc questions over the plot tables (execute_sql {describe: true} explains them); prefer the plot tools for changes.
- For market research on web-novel platforms, novel_rankings shows a board with its rank movement and novel_book_detail one book: both are cached snapshots, so quote when they were collected, say when they are stale, and never invent numbers.
${delegationGuide()}
${jobsGuide()}
- For large, repeatable multi-agent work (brainstorming many angles, a write-review-revise loop on a chapter, digesting a book, a continuity check) use a workflow: list_workflows shows them, run_workflow starts one (the user approves it; the result comes back as a message).
- For multi-step work keep a task list (task_create, task_set_status). Ask the user (request_user_input) when a choice is theirs to make.
- Be brief in chat; put long text in files.`,
});
