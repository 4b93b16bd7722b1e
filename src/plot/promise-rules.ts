import type { PlotDb } from "./db.js";
import { nowIso } from "./store.js";

/**
 * Reopen every promise among `promiseIds` that a payoff beat fulfilled but that no longer has a
 * payoff on a live (non-archived) scene. Promises fulfilled by hand, open or abandoned ones are
 * never touched. One set-based statement; returns the ids it reopened.
 */
export function reopenPayofflessPromises(db: PlotDb, promiseIds: number[]): number[] {
  if (promiseIds.length === 0) return [];
  const rows = db
    .prepare(
      `UPDATE story_promise SET status = 'open', fulfilled_via = NULL, fulfilled_by = NULL, updated_at = ?
       WHERE id IN (SELECT value FROM json_each(?)) AND status = 'fulfilled' AND fulfilled_via = 'payoff'
         AND NOT EXISTS (SELECT 1 FROM story_promise_beat b JOIN story_scene s ON s.id = b.scene_id
                         WHERE b.promise_id = story_promise.id AND b.kind = 'payoff' AND s.status <> 'archived')
       RETURNING id`,
    )
    .all(nowIso(), JSON.stringify(promiseIds)) as { id: number }[];
  return rows.map((r) => r.id);
}

/** Ids of the promises that have a beat on any of the scenes. */
export function promisesWithBeatsOn(db: PlotDb, sceneIds: number[]): number[] {
  if (sceneIds.length === 0) return [];
  return (
    db
      .prepare(
        "SELECT DISTINCT promise_id AS id FROM story_promise_beat WHERE scene_id IN (SELECT value FROM json_each(?))",
      )
      .all(JSON.stringify(sceneIds)) as { id: number }[]
  ).map((r) => r.id);
}
