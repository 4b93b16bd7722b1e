import { join } from "node:path";
import { NbError } from "../core/errors.js";
import { isInside, type ResolvedPath, realPathOf, resolveFileAddress } from "../workspace/paths.js";
import type { ToolContext } from "./types.js";

/** The folder of a project's World Engine files (schema, calendar): part of the World Engine's access level. */
export const WORLD_DIR = "world-engine";

/**
 * Where a profile's file writes may land, beyond the authorisation every call gets; checked by
 * dispatch on every prepared call's write targets, before the gate decides, so a refused call is
 * never offered for approval. Judged on real paths, so a link is no way
 * round either rule.
 * - `world-engine/` belongs to the World Engine: only a caller whose World Engine access is
 *   read-write (as `execute_world`'s binding gives it) writes there through the file tools.
 * - A tool bound with `target: "<payload field>"` (the writer, the inline editor) writes only the
 *   file its invocation's payload names in that field.
 */
export function assertWriteReach(tool: string, targets: string[] | null, ctx: ToolContext): void {
  if (ctx.profileKey === null) return;
  const field = typeof ctx.binding.target === "string" ? ctx.binding.target : null;
  if (targets === null) {
    // Nothing to judge by (a patch that does not parse, a database write); without a bound target it fails or runs on its own.
    if (field === null) return;
    throw new NbError(
      "not_allowed",
      `${ctx.profileKey} writes only its invocation's target; ${tool} could not tell which files this call writes`,
    );
  }
  const resolved = targets.map((t) => resolveFileAddress(ctx.workspace, ctx.project, t));
  if (ctx.worldFiles !== "readwrite") {
    const world = resolved.find(inWorldDir);
    if (world) {
      throw new NbError(
        "not_allowed",
        `${world.display} belongs to the World Engine, which ${ctx.profileKey} may only read: its schema and calendar change only for a profile with read-write World Engine access (world.engine)`,
      );
    }
  }
  if (field !== null) assertTarget(ctx, field, resolved);
}

/** True when a file is (by name or really) inside its project's `world-engine/` folder. */
function inWorldDir(r: ResolvedPath): boolean {
  if (r.rel === WORLD_DIR || r.rel.startsWith(`${WORLD_DIR}/`)) return true;
  const dir = join(r.project.realRoot, WORLD_DIR);
  return isInside(realPathOf(r.abs, r.display), dir);
}

function assertTarget(ctx: ToolContext, field: string, resolved: ResolvedPath[]): void {
  const named = ctx.session?.payload?.[field];
  if (typeof named !== "string" || named.trim() === "") {
    throw new NbError(
      "not_allowed",
      `${ctx.profileKey} writes only the target file of its invocation (input.${field}), and its invocation named none: the agent that invokes it passes the file as input.${field}`,
    );
  }
  const target = resolveFileAddress(ctx.workspace, ctx.project, named);
  const real = realPathOf(target.abs, target.display);
  for (const r of resolved) {
    // The same file under the same name: a link to it (or from it) is another way in, not the target.
    if (r.project !== target.project || r.rel !== target.rel || realPathOf(r.abs, r.display) !== real) {
      throw new NbError(
        "not_allowed",
        `${ctx.profileKey} writes only the target file of its invocation (input.${field}: ${target.display}), not ${r.display}`,
      );
    }
  }
}
