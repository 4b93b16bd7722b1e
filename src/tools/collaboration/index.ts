import type { AnyTool } from "../types.js";
import { createAgent } from "./create-agent.js";
import { detachAgent } from "./detach-agent.js";
import { getAgent } from "./get-agent.js";
import { getAgentProfile } from "./get-agent-profile.js";
import { getSession } from "./get-session.js";
import { invokeAgent } from "./invoke-agent.js";

/** The collaboration tools (seed: "Collaboration"); session-bound. */
export const collaborationTools: AnyTool[] = [
  createAgent,
  invokeAgent,
  getAgent,
  getAgentProfile,
  getSession,
  detachAgent,
];
