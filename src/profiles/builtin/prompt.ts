import type { PromptContext } from "../types.js";

/** The language line every built-in prompt carries. */
function languageLine(ctx: PromptContext): string {
  return ctx.language === "zh"
    ? "The project is written in Chinese: write prose and notes in Chinese unless asked otherwise."
    : "The project is written in English.";
}

/**
 * The shared opening of every built-in system prompt that works in the project's files: who, where
 * (the layout is said here once; the project's AGENTS.md adds only what the author wants), language.
 */
export function basePrompt(role: string, ctx: PromptContext): string {
  const where = ctx.projectName
    ? `You work in the NeuroBook project "${ctx.projectTitle ?? ctx.projectName}" (folder ${ctx.projectName}; another project's paths are workspace/<project>/<path>): lorebook/ canon, manuscript/<chapter>/index.md prose, world-engine/ world schema and calendar, .agent/plan/ plans.`
    : "You work at workspace level, without a current project.";
  return `${role}\n\n${where}\n${languageLine(ctx)}`;
}

/** The opening of a profile that never touches the project's files (no layout to tell it). */
export function scopedPrompt(role: string, ctx: PromptContext): string {
  return `${role}\n${languageLine(ctx)}`;
}

/** The eight plot read tools, as the profiles that read the plot list them. */
export const PLOT_READ_TOOLS = [
  "get_story_tree",
  "get_story_thread",
  "get_story_scene_context",
  "get_scene_world_context",
  "get_story_chapter",
  "get_chapter_writer_brief",
  "get_story_promise",
  "get_story_decision",
] as const;

/** The seven plot write tools, for the profiles that shape the plot (leader, director). */
export const PLOT_WRITE_TOOLS = [
  "save_story_act",
  "save_story_chapter",
  "save_story_thread",
  "save_story_scene",
  "save_story_promise",
  "save_promise_beat",
  "save_story_decision",
] as const;

/** The collaboration tools, as the coordinating profiles (leader, director) list them. */
export const COLLABORATION_TOOLS = [
  "create_agent",
  "invoke_agent",
  "get_agent",
  "get_agent_profile",
  "get_session",
  "detach_agent",
] as const;

/** The background-job tools, for the profiles that start jobs and follow them (leader, director). */
export const JOB_TOOLS = ["list_jobs", "get_job", "cancel_job"] as const;

/** The subject-memory tools of the profiles that keep characters' memories (leader, director). */
export const MEMORY_TOOLS = ["subject_rag_search", "subject_event_append", "subject_memory_update"] as const;

/** The plot tools a chapter's drafting rarely needs: reader promises, their beats, decisions and acts. */
export const PLOT_LEDGER_TOOLS = [
  "get_story_promise",
  "get_story_decision",
  "save_story_act",
  "save_story_promise",
  "save_promise_beat",
  "save_story_decision",
] as const;

/** How background jobs behave, for the profiles that have the job tools. */
export function jobsGuide(): string {
  return "- A long command (a search over the whole manuscript, a build) can run in the background: bash with background: true, like invoke_agent with background: true for an agent. The call returns a job id at once and the result comes back to you as a message when the job ends: end your turn then, do not poll. list_jobs and get_job show your jobs (get_job has the whole result), cancel_job stops one.";
}

/** How a coordinating profile delegates: whom to give what, and how the calls behave. */
export function delegationGuide(): string {
  return `- Delegate when a specialised agent clearly helps, not for form's sake: the writer for prose (one target file per call), world.engine for world facts and changes, the director for plot structure, retrieval for finding what canon says, researcher for web research. Look first (get_agent_profile), create once (create_agent, with \`initial\` as a JSON object), reuse it (get_agent lists yours), and call it with invoke_agent (\`input\` is its payload, e.g. the writer's {path, chapterId}).
- An agent you call works in your project, never in a more permissive mode than yours, and only with its own tools. If it needs the user (status "waiting"), tell the user what it waits on; its result comes back to you as a message later. A field error names a JSON Pointer: fix the object there, never stringify it.`;
}
