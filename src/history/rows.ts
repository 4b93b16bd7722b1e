import { existsSync } from "node:fs";
import { hasPlotRowChanges, type PlotRowDiff, plotRowChanges, revertPlotChange } from "../plot/change-log.js";
import { plotDb } from "../plot/db.js";
import type { Project } from "../workspace/project.js";

/** What a change did to database rows (the row logs of the plot database, keyed by change id). */
export interface RowsOfChange {
  plot: PlotRowDiff[];
}

/** The plot database, when the project has one (a project never planned has none to open). */
function plotIfAny(project: Project) {
  return existsSync(project.dbPath("project")) ? plotDb(project) : null;
}

/** The rows a change touched, field by field. */
export function rowsOfChange(project: Project, changeId: string): RowsOfChange {
  const db = plotIfAny(project);
  return { plot: db ? plotRowChanges(db, changeId) : [] };
}

/** True when the row logs hold rows of this change. */
export function changedRows(project: Project, changeId: string): boolean {
  const db = plotIfAny(project);
  return db !== null && hasPlotRowChanges(db, changeId);
}

/**
 * Take back a change's rows, in each database's own transaction logged under `newChangeId`; the
 * row log refuses (`conflict`, nothing changed) a row changed since or a link the revert would
 * break. Returns how many rows it restored.
 */
export function revertRowsOf(project: Project, changeId: string, newChangeId: string): number {
  const db = plotIfAny(project);
  if (!db || !hasPlotRowChanges(db, changeId)) return 0;
  return revertPlotChange(db, changeId, newChangeId).length;
}
