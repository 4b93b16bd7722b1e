import { NbError } from "../core/errors.js";
import type { PlotDb } from "./db.js";
import type { Placement } from "./schemas.js";

/**
 * Insert `id` into the ordered list `others` (which does not contain it) at the placement, or at
 * the end when there is none. `before`/`after` must name a member of the list.
 */
export function placeId(
  others: number[],
  id: number,
  placement: Placement | undefined,
  pointer: string,
): number[] {
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

/** Write 0..n-1 into `column` for the ids in order, touching only rows whose value changes. */
export function writeOrder(db: PlotDb, table: string, column: string, ids: number[]): void {
  const stmt = db.prepare(`UPDATE ${table} SET ${column} = ? WHERE id = ? AND ${column} IS NOT ?`);
  for (const [i, id] of ids.entries()) stmt.run(i, id, i);
}

/** Ids of one ordered bucket: rows matching `where`, by (column, id). */
export function bucketIds(
  db: PlotDb,
  table: string,
  column: string,
  where: string,
  params: unknown[],
): number[] {
  return (
    db.prepare(`SELECT id FROM ${table} WHERE ${where} ORDER BY ${column}, id`).all(...params) as {
      id: number;
    }[]
  ).map((r) => r.id);
}
