import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomicSync } from "../core/atomic-write.js";
import { defaultCalendarYaml } from "./calendar-seed.js";
import { formatProjectMeta, type ProjectMeta } from "./project-meta.js";
import { defaultSchemaYaml } from "./schema-seed.js";

/** Folders every project has. */
export const PROJECT_DIRS = [
  "lorebook",
  "manuscript",
  "world-engine",
  "simulation/subjects",
  ".agent/plan",
  ".nbook/agent/profiles",
  ".nbook/agent/skills",
  ".nbook/agent/workflows",
] as const;

/** A file a new project starts with; `content` gets the project's metadata. */
export interface SeedFile {
  path: string;
  content: (meta: ProjectMeta) => string;
}

const agentsMd = (meta: ProjectMeta) =>
  meta.language === "zh"
    ? `# ${meta.title}\n\n给本项目中工作的智能体的说明。\n\n- lorebook/ 存放稳定的设定（人物、地点、规则）。\n- manuscript/ 存放正文，每章一个文件夹，正文在 index.md。\n- world-engine/ 存放世界状态的模式与历法；状态本身通过 execute_world 读写。\n- .agent/plan/ 存放计划模式下的提案。\n`
    : `# ${meta.title}\n\nInstructions for agents working in this project.\n\n- lorebook/ holds stable canon (characters, places, rules), one folder per entry with index.md.\n- manuscript/ holds the prose, one folder per chapter with index.md.\n- world-engine/ holds the world-state schema and calendar; the state itself is read and written through execute_world.\n- .agent/plan/ holds proposals written in plan mode.\n`;

/** Files a new project gets, beyond project.yaml: among them the World Engine's starting calendar and schema. */
export const SEED_FILES: SeedFile[] = [
  { path: "AGENTS.md", content: agentsMd },
  { path: "lorebook/index.md", content: (m) => `# ${m.language === "zh" ? "设定" : "Lorebook"}\n` },
  { path: "manuscript/index.md", content: (m) => `# ${m.title}\n` },
  { path: "world-engine/calendar.yaml", content: defaultCalendarYaml },
  { path: "world-engine/schema.yaml", content: defaultSchemaYaml },
];

/** Create the full layout of a new project in an existing empty or missing folder. */
export function writeProjectLayout(
  root: string,
  meta: ProjectMeta,
  opts: { keepExisting?: boolean } = {},
): void {
  for (const dir of PROJECT_DIRS) mkdirSync(join(root, dir), { recursive: true });
  writeFileAtomicSync(join(root, "project.yaml"), formatProjectMeta(meta));
  for (const f of SEED_FILES) {
    const target = join(root, f.path);
    if (opts.keepExisting && existsSync(target)) continue;
    writeFileAtomicSync(target, f.content(meta));
  }
}
