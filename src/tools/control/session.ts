import { NbError } from "../../core/errors.js";
import type { SessionServices, ToolContext } from "../types.js";

/**
 * The service a session-bound tool needs from the harness. Outside a session (CLI, MCP) there is
 * none, and the tool answers `unsupported` instead of pretending to work.
 */
export function sessionService<K extends keyof SessionServices>(
  ctx: ToolContext,
  name: K,
  tool: string,
): NonNullable<SessionServices[K]> {
  const service = ctx.session?.services[name];
  if (!service) throw new NbError("unsupported", `${tool} works only inside an agent session`);
  return service;
}
