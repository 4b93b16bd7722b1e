import type { Skill } from "./catalog.js";

/** How a profile's prompt lists the skills: with their descriptions, or by name only. */
export type SkillsForm = "described" | "named";

/**
 * The system-prompt section listing the skills an agent can open with `read` (null when none). Each
 * is one line, name and description: when to use it is the first thing its SKILL.md says, and this
 * section is sent on every turn.
 */
export function skillsSection(skills: readonly Skill[], form: SkillsForm = "described"): string | null {
  if (skills.length === 0) return null;
  if (form === "named")
    return `## Skills\nWhen a task matches one, read skill://<name>/SKILL.md first: ${skills.map((s) => s.name).join(", ")}.`;
  const rows = skills.map((s) => `- ${s.name}: ${oneLine(s.meta.description)}`);
  return `## Skills
When a task matches one, read skill://<name>/SKILL.md first, then only the files it points to; the author's instructions win.
${rows.join("\n")}`;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}
