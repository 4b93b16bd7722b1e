import { NbError } from "../core/errors.js";
import { ProfileCatalog } from "../profiles/catalog.js";
import { createToolRegistry } from "../tools/builtin.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { Project } from "../workspace/project.js";
import { Workspace } from "../workspace/workspace.js";

/** Options every command accepts for locating the workspace and project. */
export interface LocateOptions {
  workspace?: string;
  project?: string;
}

/** What a command works on. */
export interface CliContext {
  workspace: Workspace;
  project: Project | null;
  registry: ToolRegistry;
  catalog: ProfileCatalog;
}

/** Find the workspace and the current project the way every command does. */
export function openCliContext(opts: LocateOptions, needProject = false): CliContext {
  const workspace = Workspace.discover({ workspace: opts.workspace });
  const name = opts.project ?? workspace.projectAt(process.cwd());
  const project = name ? workspace.project(name) : null;
  if (needProject && !project) {
    throw new NbError("invalid_input", "No project: pass --project <name> or run inside a project folder");
  }
  const registry = createToolRegistry();
  return { workspace, project, registry, catalog: new ProfileCatalog(registry, workspace, project) };
}
