import type { Skill } from "./catalog.js";

/**
 * The system-prompt section listing the skills an agent can open with `read` (null when none). Each
 * is one line, name and description: when to use it is the first thing its SKILL.md says, and this
 * section is sent on every turn.
 */
export function skillsSection(skills: readonly Skill[]): string | null {
  if (skills.length === 0) return null;
  const rows = skills.map((s) => `- ${s.name} (${s.locator}): ${oneLine(s.meta.description)}`);
  return `## Skills
Written procedures: when a task matches one, read its SKILL.md first, then only the files it points to. The author's instructions win over a skill.
${rows.join("\n")}`;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}
