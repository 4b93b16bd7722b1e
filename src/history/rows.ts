import { existsSync } from "node:fs";
import { z } from "zod";
import {
  hasPlotRowChanges,
  PlotRowDiffSchema,
  plotRowChanges,
  revertPlotChange,
} from "../plot/change-log.js";
import { plotDb } from "../plot/db.js";
import type { Project } from "../workspace/project.js";
import { revertWorldChange, WorldChangeSchema, worldRowChanges } from "../world/change-log.js";
import { openWorld } from "../world/world.js";

/**
 * What a change did to database rows: the row logs of the plot database (a field diff per row) and
 * of the World Engine (a patch list per slice), keyed by change id.
 */
export const RowsOfChangeSchema = z
  .object({ plot: z.array(PlotRowDiffSchema), world: WorldChangeSchema })
  .strict();
export type RowsOfChange = z.infer<typeof RowsOfChangeSchema>;

/** The plot database, when the project has one (a project never planned has none to open). */
function plotIfAny(project: Project) {
  return existsSync(project.dbPath("project")) ? plotDb(project) : null;
}

function worldIfAny(project: Project) {
  return existsSync(project.dbPath("world")) ? openWorld(project) : null;
}

const NO_WORLD_ROWS = { slices: [], subjects: [] };

/** The rows a change touched. */
export function rowsOfChange(project: Project, changeId: string): RowsOfChange {
  const plot = plotIfAny(project);
  const world = worldIfAny(project);
  return {
    plot: plot ? plotRowChanges(plot, changeId) : [],
    world: world ? worldRowChanges(world.db, changeId) : NO_WORLD_ROWS,
  };
}

/** Thrown inside a check's transactions to roll them back once every part has been tried. */
class CheckedOnly extends Error {}

/**
 * Take back these changes' rows (newest first) as one change logged under `newChangeId`: the plot
 * database's and the World Engine's in one transaction each, the world's inside the plot's, so a
 * refusal anywhere leaves both as they were. A row log refuses (`conflict`, naming the change) a
 * row changed since or a link the revert would break, and the World Engine re-runs its checks on
 * the subjects it touched. With `check`, everything is tried and rolled back: the answer is whether
 * it can be applied. Returns how many rows and slices it restored.
 */
export function revertRowsOf(
  project: Project,
  changeIds: readonly string[],
  newChangeId: string,
  opts: { check?: boolean } = {},
): number {
  const plot = plotIfAny(project);
  const world = worldIfAny(project);
  const plotIds = plot ? changeIds.filter((id) => hasPlotRowChanges(plot, id)) : [];
  const worldIds = world
    ? changeIds.filter((id) => {
        const touched = worldRowChanges(world.db, id);
        return touched.slices.length > 0 || touched.subjects.length > 0;
      })
    : [];
  if (!plotIds.length && !worldIds.length) return 0;
  let restored = 0;
  const all = () => {
    if (plot && plotIds.length) restored += revertPlotChange(plot, plotIds, newChangeId).length;
    if (world && worldIds.length) {
      const r = revertWorldChange(world, worldIds, newChangeId);
      restored += r.change.slices.length + r.change.subjects.length;
    }
    if (opts.check) throw new CheckedOnly();
  };
  const inWorld = () => (world ? world.db.transaction(all)() : all());
  try {
    if (plot) plot.transaction(inWorld)();
    else inWorld();
  } catch (e) {
    if (!(e instanceof CheckedOnly)) throw e;
  }
  return restored;
}
