import { type BigIntStats, readdirSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { isInside } from "./paths.js";
import type { Project } from "./project.js";
import type { Workspace } from "./workspace.js";

/** What a workspace and its projects may add to the built-in agent resources, in `.nbook/agent/<kind>/`. */
export type AgentResourceKind = "profiles" | "skills" | "workflows";

/** The folder of one layer above the built-in one. */
export interface AgentRoot {
  layer: "workspace" | "project";
  /** Absolute host path of the folder. */
  dir: string;
  /** How a person names the folder: workspace-relative (`.nbook/agent/skills`, `novel/.nbook/agent/skills`). */
  label: string;
  /** A real path the folder's files must really stay inside (a project's), or null. */
  within: string | null;
}

/**
 * The workspace's and then the project's folder of `kind`, lowest first: a later layer overrides an
 * earlier one. None without a workspace; a project's only with its workspace.
 */
export function agentRoots(
  kind: AgentResourceKind,
  workspace: Workspace | null | undefined,
  project: Project | null | undefined,
): AgentRoot[] {
  if (!workspace) return [];
  const roots: AgentRoot[] = [
    {
      layer: "workspace",
      dir: join(workspace.nbookDir, "agent", kind),
      label: `.nbook/agent/${kind}`,
      within: null,
    },
  ];
  if (project)
    roots.push({
      layer: "project",
      dir: join(project.root, ".nbook", "agent", kind),
      label: `${project.name}/.nbook/agent/${kind}`,
      within: project.realRoot,
    });
  return roots;
}

/** The names of the folders in `dir` (links included, hidden ones not); none when it cannot be read. */
export function subfolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => !d.name.startsWith(".") && (d.isDirectory() || d.isSymbolicLink()))
      .map((d) => d.name);
  } catch {
    return [];
  }
}

/**
 * A layer's file (a folder's SKILL.md, workflow.js) as its catalog may read it: its identity, or
 * why the entry is broken. A project's file is one of its files: a link out of the project is not
 * followed.
 */
export function layerFile(
  root: Pick<AgentRoot, "within">,
  file: string,
  name: string,
): { stat: BigIntStats } | { broken: string } {
  try {
    if (root.within && !isInside(realpathSync.native(file), root.within))
      return { broken: `${name} leads out of the project through a symbolic link` };
    const stat = statSync(file, { bigint: true });
    return stat.isFile() ? { stat } : { broken: `${name} is not a regular file` };
  } catch {
    return { broken: `no ${name} in the folder` };
  }
}
