import { NbError } from "../core/errors.js";
import type { Project } from "../workspace/project.js";
import { Workspace } from "../workspace/workspace.js";

/** Options every command accepts for locating the workspace and project. */
export interface LocateOptions {
  workspace?: string;
  project?: string;
}

/** The workspace a command works in and its current project. */
export interface Located {
  workspace: Workspace;
  project: Project | null;
}

/**
 * Find the workspace and the current project the way every command does. Kept apart from the tool
 * registry (src/cli/context.ts) so that commands calling no tool do not load every tool's code.
 */
export function locateProject(opts: LocateOptions, needProject = false): Located {
  const workspace = Workspace.discover({ workspace: opts.workspace });
  const name = opts.project ?? workspace.projectAt(process.cwd());
  const project = name ? workspace.project(name) : null;
  if (needProject && !project) {
    throw new NbError("invalid_input", "No project: pass --project <name> or run inside a project folder");
  }
  return { workspace, project };
}
