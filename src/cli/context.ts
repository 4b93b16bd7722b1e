import { ProfileCatalog } from "../profiles/catalog.js";
import { createToolRegistry } from "../tools/builtin.js";
import type { ToolRegistry } from "../tools/registry.js";
import { type Located, type LocateOptions, locateProject } from "./locate.js";

export type { LocateOptions };

/** What a command that calls tools works on. */
export interface CliContext extends Located {
  registry: ToolRegistry;
  catalog: ProfileCatalog;
}

/** Find the workspace and the current project, with every tool and the profiles that may use them. */
export function openCliContext(opts: LocateOptions, needProject = false): CliContext {
  const { workspace, project } = locateProject(opts, needProject);
  const registry = createToolRegistry();
  return { workspace, project, registry, catalog: new ProfileCatalog(registry, workspace, project) };
}
