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

/**
 * Take back a change's rows, in each database's own transaction logged under `newChangeId`; a row
 * log refuses (`conflict`, nothing changed there) a row changed since or a link the revert would
 * break, and the World Engine re-runs its checks on the subjects it touched. Returns how many
 * rows and slices it restored.
 */
export function revertRowsOf(project: Project, changeId: string, newChangeId: string): number {
  let restored = 0;
  const plot = plotIfAny(project);
  if (plot && hasPlotRowChanges(plot, changeId))
    restored += revertPlotChange(plot, changeId, newChangeId).length;
  const world = worldIfAny(project);
  if (world) {
    const touched = worldRowChanges(world.db, changeId);
    if (touched.slices.length || touched.subjects.length) {
      const r = revertWorldChange(world, changeId, newChangeId);
      restored += r.change.slices.length + r.change.subjects.length;
    }
  }
  return restored;
}
