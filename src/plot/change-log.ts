import { z } from "zod";
import {
  hasRowChanges,
  type RowChange,
  type RowLogScript,
  type RowLogSpec,
  revertRows,
  rowChanges,
  rowLogScript,
  withRowLog,
} from "../core/row-log.js";
import type { PlotDb } from "./db.js";

/** The plot tables whose rows recorded changes log (every table of project.sqlite but the log). */
const PLOT_LOG: RowLogSpec = {
  logTable: "history_row",
  tables: [
    "story",
    "story_act",
    "story_chapter",
    "story_phase",
    "story_thread",
    "story_scene",
    "story_scene_subject",
    "story_scene_ref",
    "story_promise",
    "story_promise_beat",
    "story_decision",
    "story_decision_link",
  ],
};

/** How a person names a plot row: `scene 5`, `beat 3`, `subject link [5,"ana"]`. */
function rowName(table: string, key: unknown[]): string {
  const label = table === "story" ? "story" : table.replace(/^story_/, "").replace(/_/g, " ");
  return key.length === 1 ? `${label} ${String(key[0])}` : `${label} ${JSON.stringify(key)}`;
}

/**
 * Run a plot write as one transaction; under a change id (a recorded change), every plot row it
 * touches is logged with its before and after images in that transaction.
 */
export function recordPlotRows<T>(db: PlotDb, changeId: string | undefined, fn: () => T): T {
  return withRowLog(db, PLOT_LOG, changeId, fn);
}

/** The SQL another connection to project.sqlite runs to log its write under `changeId` (execute_sql's process). */
export function plotRowLogScript(db: PlotDb, changeId: string): RowLogScript {
  return rowLogScript(db, PLOT_LOG, changeId);
}

/** One field a change set: its value before and after. */
const FieldDiffSchema = z.object({ field: z.string(), before: z.unknown(), after: z.unknown() }).strict();

/** One plot row a change touched, as `history show` lists it: what happened and which fields. */
export const PlotRowDiffSchema = z
  .object({
    table: z.string(),
    key: z.array(z.union([z.string(), z.number(), z.null()])),
    name: z.string(),
    op: z.enum(["insert", "update", "delete"]),
    fields: z.array(FieldDiffSchema),
  })
  .strict();
export type PlotRowDiff = z.infer<typeof PlotRowDiffSchema>;

/** The fields of a row that differ between two images (every field for an insert or delete). */
function fieldDiff(c: RowChange): PlotRowDiff["fields"] {
  const names = [...new Set([...Object.keys(c.before ?? {}), ...Object.keys(c.after ?? {})])];
  return names
    .map((field) => ({
      field,
      before: c.before === null ? null : (c.before[field] ?? null),
      after: c.after === null ? null : (c.after[field] ?? null),
    }))
    .filter(
      (f) => c.before === null || c.after === null || JSON.stringify(f.before) !== JSON.stringify(f.after),
    );
}

function diffOf(c: RowChange): PlotRowDiff {
  return {
    table: c.table,
    key: c.key,
    name: rowName(c.table, c.key),
    op: c.before === null ? "insert" : c.after === null ? "delete" : "update",
    fields: fieldDiff(c),
  };
}

/** The plot rows a change touched, each with its field diff (empty: none). */
export function plotRowChanges(db: PlotDb, changeId: string): PlotRowDiff[] {
  return rowChanges(db, PLOT_LOG, changeId).map(diffOf);
}

/** True when a change logged plot rows. */
export function hasPlotRowChanges(db: PlotDb, changeId: string): boolean {
  return hasRowChanges(db, PLOT_LOG, changeId);
}

/**
 * Undo changes' plot rows (newest first) in one transaction logged under `newChangeId`. Refused with
 * `conflict` and nothing changed when a row changed since (both versions shown) or when a row
 * would be left pointing at one that is gone (a scene whose chapter the revert removes); a row
 * that breaks the schema's rules (SQLite's CHECKs) fails the same way. `not_found`: the change
 * logged no plot rows. Returns the revert's own rows.
 */
export function revertPlotChange(
  db: PlotDb,
  changeIds: string | readonly string[],
  newChangeId: string,
): PlotRowDiff[] {
  return revertRows(db, PLOT_LOG, changeIds, newChangeId, { name: rowName }).map(diffOf);
}
