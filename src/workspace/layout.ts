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
    ? `# ${meta.title}\n\n<!-- 在这里写给本项目所有智能体的长期指示：文风、人称、名字、绝不能改的设定。注释之外的文字会随每次调用发给智能体，请写得简短。项目结构（lorebook/、manuscript/、world-engine/、.agent/plan/）它们已经知道。 -->\n`
    : `# ${meta.title}\n\n<!-- Your standing instructions for every agent in this project: style, point of view, names, what must never change. Text outside these comment marks is sent to the agents with every call, so keep it short. They already know the layout (lorebook/, manuscript/, world-engine/, .agent/plan/). -->\n`;

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
