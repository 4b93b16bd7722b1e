import type { Skill } from "./catalog.js";

/** The system-prompt section listing the skills an agent can open with `read` (null when none). */
export function skillsSection(skills: readonly Skill[]): string | null {
  if (skills.length === 0) return null;
  const rows = skills.map(
    (s) =>
      `- ${s.name} (${s.locator}): ${oneLine(s.meta.description)} When to use: ${oneLine(s.meta.when_to_use)}`,
  );
  return `## Skills
Skills are written procedures for recurring tasks. When a task matches one, read its SKILL.md with the read tool before you start (pass the address shown), then read only the files it points to (skill://<name>/<file>). A skill guides the current task; the author's instructions win over it.
${rows.join("\n")}`;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}
