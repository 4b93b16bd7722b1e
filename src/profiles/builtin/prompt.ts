import type { PromptContext } from "../types.js";

/** The shared opening of every built-in system prompt: who, where, and how to answer. */
export function basePrompt(role: string, ctx: PromptContext): string {
  const where = ctx.projectName
    ? `You work in the NeuroBook project "${ctx.projectTitle ?? ctx.projectName}" (folder ${ctx.projectName}). Relative paths resolve inside it; other projects are addressed as workspace/<project>/<path>.`
    : "You work at workspace level, without a current project.";
  const lang =
    ctx.language === "zh"
      ? "The project is written in Chinese: write prose and notes in Chinese unless asked otherwise."
      : "The project is written in English.";
  return `${role}\n\n${where}\n${lang}\nLayout: lorebook/ (stable canon), manuscript/ (the prose), world-engine/ (world schema and calendar), .agent/plan/ (plans).\nYou can call only these tools: ${ctx.toolKeys.join(", ") || "(none)"}.`;
}
