import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { toErrorInfo } from "../core/errors.js";
import { agentRoots, layerFile, subfolders } from "../workspace/agent-roots.js";
import type { Project } from "../workspace/project.js";
import { readTextSafeSync } from "../workspace/safe-read.js";
import type { Workspace } from "../workspace/workspace.js";
import { parseSkillFile, SKILL_FILE, type SkillFrontMatter } from "./skill-file.js";

/** Where a skill comes from; a later layer overrides an earlier one by name. */
export type SkillLayer = "builtin" | "workspace" | "project";

/** A skill folder and what is known about it. */
export interface SkillEntry {
  /** The folder's name (the key a later layer overrides). */
  name: string;
  layer: SkillLayer;
  /** Absolute host path of the skill folder; never shown to a model. */
  dir: string;
  /** How a person finds the folder: workspace-relative for workspace and project skills. */
  path: string;
  /** The address the read tool accepts for its SKILL.md. */
  locator: string;
  status: "ok" | "broken";
  /** Why a broken skill is broken. */
  reason?: string;
  meta?: SkillFrontMatter;
}

/** A skill that loaded. */
export type Skill = SkillEntry & { status: "ok"; meta: SkillFrontMatter };

/** The folder the built-in skills ship in (copied into dist/ by the build). */
export const BUILTIN_SKILLS_DIR = fileURLToPath(new URL("./builtin/", import.meta.url));

/** The largest SKILL.md read. */
const MAX_SKILL_BYTES = 1024 * 1024;

// One parse per SKILL.md version: the catalog is listed before every model call.
const cache = new Map<string, { stamp: string; entry: SkillEntry }>();

/** One layer's folder of skills. */
export interface SkillRoot {
  layer: SkillLayer;
  dir: string;
  /** How a person names the folder (workspace-relative); null for the built-in layer. */
  label: string | null;
  /** A real path the skills must stay inside (a project's), or null. */
  within: string | null;
}

/** The layers' roots, lowest first. */
export function skillRoots(workspace: Workspace | null, project: Project | null): SkillRoot[] {
  return [
    { layer: "builtin", dir: BUILTIN_SKILLS_DIR, label: null, within: null },
    ...agentRoots("skills", workspace, project),
  ];
}

/**
 * Every skill folder of the three layers (built-in < workspace < project), the winning one per name,
 * sorted by name. A broken skill is listed with its reason and overrides a lower layer's skill of
 * the same name all the same: falling back silently would run instructions the author replaced.
 */
export function listSkills(workspace: Workspace | null, project: Project | null): SkillEntry[] {
  const byName = new Map<string, SkillEntry>();
  for (const root of skillRoots(workspace, project)) {
    for (const name of subfolders(root.dir)) {
      const path = `${root.label ?? "(builtin)"}/${name}`;
      byName.set(name, loadEntry(name, root, join(root.dir, name), path));
    }
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A skill as the CLI and the HTTP API show it: its host path (`dir`) left out. */
export function skillView(s: SkillEntry) {
  return {
    name: s.name,
    status: s.status,
    layer: s.layer,
    path: s.path,
    locator: s.locator,
    ...(s.reason ? { reason: s.reason } : {}),
    ...(s.meta
      ? { description: s.meta.description, whenToUse: s.meta.when_to_use, version: s.meta.version ?? null }
      : {}),
  };
}

/** The skills that loaded, for a prompt. */
export function usableSkills(workspace: Workspace | null, project: Project | null): Skill[] {
  return listSkills(workspace, project).filter((s): s is Skill => s.status === "ok");
}

function loadEntry(name: string, root: SkillRoot, dir: string, path: string): SkillEntry {
  const layer = root.layer;
  const base = { name, layer, dir, path, locator: `skill://${name}/${SKILL_FILE}` };
  const file = join(dir, SKILL_FILE);
  const found = layerFile(root, file, SKILL_FILE);
  if ("broken" in found) return { ...base, status: "broken", reason: found.broken };
  const st = found.stat;
  const stamp = `${layer}:${st.ino}:${st.mtimeNs}:${st.size}`;
  const cached = cache.get(file);
  if (cached?.stamp === stamp) return cached.entry;
  let text: string | null;
  try {
    text = readTextSafeSync(file, { label: SKILL_FILE, root: root.within, maxBytes: MAX_SKILL_BYTES });
  } catch (e) {
    return { ...base, status: "broken", reason: toErrorInfo(e).message };
  }
  if (text === null) return { ...base, status: "broken", reason: `no ${SKILL_FILE} in the folder` };
  const entry = parseEntry(base, text);
  cache.set(file, { stamp, entry });
  return entry;
}

function parseEntry(base: Omit<SkillEntry, "status">, text: string): SkillEntry {
  const r = parseSkillFile(text);
  if (!r.ok) return { ...base, status: "broken", reason: r.reason };
  if (r.meta.name !== base.name)
    return {
      ...base,
      status: "broken",
      reason: `front matter name "${r.meta.name}" differs from the folder name "${base.name}"`,
    };
  return { ...base, status: "ok", meta: r.meta };
}
