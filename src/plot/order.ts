import { NbError } from "../core/errors.js";
import type { PlotDb } from "./db.js";
import type { Placement } from "./schemas.js";

/** One ordered list of the plot: the rows of `table` matching `where`, numbered 0..n-1 in `column`. */
export interface OrderedList {
  table: string;
  column: string;
  where: string;
  params: unknown[];
}

/** A sort value past the end of any list, for a new or moved row until placeInList numbers it. */
export const UNPLACED = 1e9;

/** All acts, in story order. */
export const ACT_ORDER: OrderedList = { table: "story_act", column: "sort_order", where: "1", params: [] };

/** All phases, in story order. */
export const PHASE_ORDER: OrderedList = {
  table: "story_phase",
  column: "sort_order",
  where: "1",
  params: [],
};

/** All chapters: chapter order is story-wide, not per act. */
export const CHAPTER_ORDER: OrderedList = {
  table: "story_chapter",
  column: "sort_order",
  where: "1",
  params: [],
};

/** The threads of one phase, or the ungrouped threads when `phaseId` is null. */
export function threadsOfPhase(phaseId: number | null): OrderedList {
  return phaseId === null
    ? { table: "story_thread", column: "sort_order", where: "phase_id IS NULL", params: [] }
    : { table: "story_thread", column: "sort_order", where: "phase_id = ?", params: [phaseId] };
}

/** The scenes of one thread, in causal order. */
export function scenesOfThread(threadId: number): OrderedList {
  return { table: "story_scene", column: "thread_sort_order", where: "thread_id = ?", params: [threadId] };
}

/** The scenes of one chapter, in reading order. */
export function scenesOfChapter(chapterId: number): OrderedList {
  return { table: "story_scene", column: "chapter_sort_order", where: "chapter_id = ?", params: [chapterId] };
}

/**
 * Insert `id` into the ordered list `others` (which does not contain it) at the placement, or at
 * the end when there is none. `before`/`after` must name a member of the list.
 */
function placeId(others: number[], id: number, placement: Placement | undefined, pointer: string): number[] {
  const list = others.filter((x) => x !== id);
  let at = list.length;
  if (placement?.position !== undefined) at = Math.min(placement.position, list.length);
  else if (placement?.before !== undefined || placement?.after !== undefined) {
    const ref = (placement.before ?? placement.after) as number;
    const key = placement.before !== undefined ? "before" : "after";
    const i = list.indexOf(ref);
    if (i < 0) {
      throw new NbError(
        "invalid_input",
        `${ref} is not in the same ordered list, so nothing can be placed ${key} it`,
        {
          fields: [{ pointer: `${pointer}/${key}`, message: "not in the same list" }],
        },
      );
    }
    at = key === "before" ? i : i + 1;
  }
  list.splice(at, 0, id);
  return list;
}

/** Write 0..n-1 into the list's column for the ids in order, touching only rows whose value changes. */
function writeOrder(db: PlotDb, list: OrderedList, ids: number[]): void {
  const stmt = db.prepare(
    `UPDATE ${list.table} SET ${list.column} = ? WHERE id = ? AND ${list.column} IS NOT ?`,
  );
  for (const [i, id] of ids.entries()) stmt.run(i, id, i);
}

/** Ids of the list's rows, by (column, id). */
function listIds(db: PlotDb, list: OrderedList): number[] {
  return (
    db
      .prepare(`SELECT id FROM ${list.table} WHERE ${list.where} ORDER BY ${list.column}, id`)
      .all(...list.params) as { id: number }[]
  ).map((r) => r.id);
}

/**
 * Put row `id` (already matching the list's `where`) at the placement in the list, at the end when
 * there is none, and renumber the list. `pointer` names the placement input in errors.
 */
export function placeInList(
  db: PlotDb,
  list: OrderedList,
  id: number,
  placement: Placement | undefined,
  pointer: string,
): void {
  writeOrder(db, list, placeId(listIds(db, list), id, placement, pointer));
}

/** Renumber a list 0..n-1 in its current order, closing the gap a row left by moving or deletion. */
export function renumberList(db: PlotDb, list: OrderedList): void {
  writeOrder(db, list, listIds(db, list));
}
