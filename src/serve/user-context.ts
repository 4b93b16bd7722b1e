import type { ToolContext } from "../tools/types.js";
import type { Project } from "../workspace/project.js";
import type { ServeHub } from "./hub.js";

/** The context the file tools' authorisation runs in for the trusted user of the workbench. */
export function userContext(hub: ServeHub, project: Project): ToolContext {
  return {
    workspace: hub.workspace,
    project,
    mode: "normal",
    profileKey: null,
    binding: {},
    worldFiles: "readwrite",
  };
}
