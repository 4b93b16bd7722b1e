import type { WorldAccess } from "../../world/script/job.js";
import type { ToolContext } from "../types.js";

/**
 * The access a call runs with. The binding decides when it names one; without a binding the
 * trusted local user (no profile) gets read-write and any profile gets read-only (fail closed).
 */
export function worldAccess(ctx: Pick<ToolContext, "binding" | "profileKey">): WorldAccess {
  const bound = ctx.binding.access;
  if (bound === "readwrite" || bound === "readonly") return bound;
  return ctx.profileKey === null && bound === undefined ? "readwrite" : "readonly";
}
