import type { WebSettings } from "../../web/config.js";
import type { ToolContext } from "../types.js";

/** The web settings in effect for a call: the workspace config, then the current project's. */
export async function webSettingsFor(ctx: ToolContext): Promise<WebSettings> {
  const { loadWebSettings } = await import("../../web/config.js");
  return loadWebSettings({ workspaceRoot: ctx.workspace.root, projectRoot: ctx.project?.root ?? null });
}
