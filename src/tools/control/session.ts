import { NbError } from "../../core/errors.js";
import type { ToolContext } from "../types.js";

/**
 * The named service a session-bound tool needs from the harness. Outside a session (CLI, MCP)
 * there is none, and the tool answers `unsupported` instead of pretending to work.
 */
export function sessionService<T>(ctx: ToolContext, name: string, tool: string): T {
  const service = ctx.session?.services[name];
  if (!service) throw new NbError("unsupported", `${tool} works only inside an agent session`);
  return service as T;
}
