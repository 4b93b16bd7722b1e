export {
  BUILTIN_SKILLS_DIR,
  listSkills,
  type Skill,
  type SkillEntry,
  type SkillLayer,
  skillRoots,
  skillView,
  usableSkills,
} from "./catalog.js";
export { readSkillText, resolveSkillFile, SKILL_SCHEME, type SkillFile } from "./locator.js";
export { skillsSection } from "./prompt-section.js";
export { parseSkillFile, SKILL_FILE, type SkillFrontMatter, SkillFrontMatterSchema } from "./skill-file.js";
