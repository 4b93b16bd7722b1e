import type { PlotContext } from "./context.js";
import type { PlotDb } from "./db.js";
import {
  ACT_ORDER,
  CHAPTER_ORDER,
  PHASE_ORDER,
  placeInList,
  renumberList,
  scenesOfChapter,
  scenesOfThread,
  threadsOfPhase,
} from "./order.js";
import { promisesWithBeatsOn, reopenPayofflessPromises } from "./promise-rules.js";
import { ENTITY, mustGet, nowIso } from "./store.js";

/** What the user can hard-delete. Agents cannot: their tools stop at archive/abandon/void. */
export const DELETABLE = ["act", "chapter", "phase", "thread", "scene", "promise", "decision"] as const;
export type DeletableKind = (typeof DELETABLE)[number];

/** The ids of a JSON array parameter, for `IN (…)`. */
const IN_LIST = "SELECT value FROM json_each(?)";

const count = (db: PlotDb, sql: string, ...params: unknown[]) =>
  (db.prepare(sql).get(...params) as { n: number }).n;

/** The scenes a delete removes with the row (a thread takes its scenes along). */
function doomedScenes(db: PlotDb, kind: DeletableKind, id: number): number[] {
  if (kind === "scene") return [id];
  if (kind !== "thread") return [];
  return (db.prepare("SELECT id FROM story_scene WHERE thread_id = ?").all(id) as { id: number }[]).map(
    (r) => r.id,
  );
}

/** Human-readable list of what deleting this row also changes or removes. */
export function describeDelete(
  pc: PlotContext,
  kind: DeletableKind,
  id: number,
): { target: string; effects: string[] } {
  const { db } = pc;
  const row = mustGet<{ title: string }>(db, kind, id, "/id");
  const effects: string[] = [];
  const add = (n: number, text: string) => {
    if (n > 0) effects.push(`${n} ${text}`);
  };
  const scenes = doomedScenes(db, kind, id);
  const sceneList = JSON.stringify(scenes);
  if (kind === "act")
    add(
      count(db, "SELECT count(*) AS n FROM story_chapter WHERE act_id = ?", id),
      "chapter(s) become ungrouped",
    );
  if (kind === "phase")
    add(
      count(db, "SELECT count(*) AS n FROM story_thread WHERE phase_id = ?", id),
      "thread(s) become ungrouped (kept, with their scenes)",
    );
  if (kind === "chapter") {
    add(
      count(db, "SELECT count(*) AS n FROM story_scene WHERE chapter_id = ?", id),
      "scene(s) are taken out of the chapter (kept)",
    );
    add(
      count(db, "SELECT count(*) AS n FROM story_promise WHERE deadline_chapter_id = ?", id) +
        count(db, "SELECT count(*) AS n FROM story_decision WHERE deadline_chapter_id = ?", id),
      "promise/decision deadline(s) are cleared",
    );
  }
  if (kind === "thread") add(scenes.length, "scene(s) of the thread are deleted");
  if (scenes.length) {
    add(
      count(db, `SELECT count(*) AS n FROM story_promise_beat WHERE scene_id IN (${IN_LIST})`, sceneList),
      "promise beat(s) are deleted",
    );
    add(
      count(
        db,
        `SELECT count(*) AS n FROM story_scene_ref WHERE target_scene_id IN (${IN_LIST}) AND scene_id NOT IN (${IN_LIST})`,
        sceneList,
        sceneList,
      ),
      "ref(s) from other scenes are removed",
    );
  }
  if (kind === "thread")
    add(
      count(db, "SELECT count(*) AS n FROM story_scene_ref WHERE target_thread_id = ?", id),
      "scene ref(s) to the thread are removed",
    );
  if (kind === "promise")
    add(
      count(db, "SELECT count(*) AS n FROM story_promise_beat WHERE promise_id = ?", id),
      "beat(s) are deleted",
    );
  if (kind === "decision") {
    add(
      count(db, "SELECT count(*) AS n FROM story_decision WHERE superseded_by_id = ?", id),
      "decision(s) it superseded return to decided (or open, if never signed off)",
    );
  }
  // Decision links and anchors: on the row itself, and on every scene that goes with it.
  const linkColumn: Partial<Record<DeletableKind, string>> = {
    thread: "target_thread_id",
    promise: "target_promise_id",
    decision: "target_decision_id",
  };
  const onScenes = (table: string, column: string) =>
    scenes.length
      ? count(db, `SELECT count(*) AS n FROM ${table} WHERE ${column} IN (${IN_LIST})`, sceneList)
      : 0;
  const column = linkColumn[kind];
  add(
    onScenes("story_decision_link", "target_scene_id") +
      (column ? count(db, `SELECT count(*) AS n FROM story_decision_link WHERE ${column} = ?`, id) : 0),
    "decision serves/dependsOn entr(ies) are removed",
  );
  add(
    onScenes("story_decision", "anchor_scene_id") +
      (kind === "decision" || kind === "scene" || kind === "phase"
        ? 0
        : count(db, `SELECT count(*) AS n FROM story_decision WHERE anchor_${kind}_id = ?`, id)),
    "decision anchor(s) fall back to the story",
  );
  return { target: `${kind} ${id} "${row.title}"`, effects };
}

/** Hard-delete one row with its cascade, then renumber orders and re-check the promises it touched. */
export function hardDelete(
  pc: PlotContext,
  kind: DeletableKind,
  id: number,
): { target: string; effects: string[] } {
  const { db } = pc;
  return db.transaction(() => {
    const described = describeDelete(pc, kind, id);
    const before = mustGet<{ thread_id?: number; chapter_id?: number | null; phase_id?: number | null }>(
      db,
      kind,
      id,
      "/id",
    );
    const chapters =
      kind === "thread"
        ? (
            db
              .prepare(
                "SELECT DISTINCT chapter_id AS id FROM story_scene WHERE thread_id = ? AND chapter_id IS NOT NULL",
              )
              .all(id) as { id: number }[]
          ).map((r) => r.id)
        : kind === "scene" && before.chapter_id != null
          ? [before.chapter_id]
          : [];
    const promises = promisesWithBeatsOn(db, doomedScenes(db, kind, id));
    const phaseThreads =
      kind === "phase"
        ? (
            db.prepare("SELECT id FROM story_thread WHERE phase_id = ? ORDER BY sort_order, id").all(id) as {
              id: number;
            }[]
          ).map((r) => r.id)
        : [];
    if (kind === "chapter")
      db.prepare(
        "UPDATE story_scene SET chapter_id = NULL, chapter_sort_order = NULL WHERE chapter_id = ?",
      ).run(id);
    // A decision superseded by this one has no replacement any more: it is what it was before.
    if (kind === "decision")
      db.prepare(
        `UPDATE story_decision SET status = CASE WHEN conclusion IS NULL THEN 'open' ELSE 'decided' END,
           superseded_by_id = NULL, updated_at = ? WHERE superseded_by_id = ?`,
      ).run(nowIso(), id);
    db.prepare(`DELETE FROM ${ENTITY[kind].table} WHERE id = ?`).run(id);

    if (kind === "act") renumberList(db, ACT_ORDER);
    if (kind === "chapter") renumberList(db, CHAPTER_ORDER);
    if (kind === "phase") renumberList(db, PHASE_ORDER);
    // The phase's threads join the ungrouped ones after those already there, in their phase order.
    for (const t of phaseThreads) placeInList(db, threadsOfPhase(null), t, undefined, "/id");
    if (kind === "thread") renumberList(db, threadsOfPhase(before.phase_id ?? null));
    if (kind === "scene") renumberList(db, scenesOfThread(before.thread_id!));
    for (const c of chapters) renumberList(db, scenesOfChapter(c));
    reopenPayofflessPromises(db, promises);
    return described;
  })();
}
