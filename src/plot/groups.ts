import type { PlotDb } from "./db.js";
import { type OrderedList, placeInList, UNPLACED } from "./order.js";
import type { Placement } from "./schemas.js";
import { assertNameFree, insertRow, mustGet, updateColumns } from "./store.js";

/**
 * Acts and phases are the same kind of row: a named, titled, ordered group with a summary, a note
 * and an active/archived status. One save path keeps their rules from drifting apart.
 */
export interface GroupRow {
  id: number;
  sort_order: number;
  name: string;
  title: string;
  summary: string;
  note: string | null;
  status: string;
  created_at: string;
  updated_at: string;
}

/** Group row → DTO. */
export function groupDto(r: GroupRow) {
  return {
    id: r.id,
    name: r.name,
    title: r.title,
    status: r.status,
    sortOrder: r.sort_order,
    summary: r.summary,
    note: r.note,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
export type GroupDto = ReturnType<typeof groupDto>;

/** A parsed save input of a group (the id already picked out of its own field). */
export interface GroupInput {
  action: "create" | "update" | "archive";
  id?: number;
  name?: string;
  title?: string;
  summary?: string;
  note?: string | null;
  status?: "active" | "archived";
  order?: Placement;
}

/** Which group: its entity kind, its ordered list and the input field that carries its id. */
export interface GroupKind {
  kind: "act" | "phase";
  list: OrderedList;
  idPointer: string;
}

/** Create, update or archive a group inside the caller's transaction; keeps the order contiguous. */
export function saveGroup(db: PlotDb, g: GroupKind, input: GroupInput): GroupDto {
  const columns = {
    name: input.name,
    title: input.title,
    summary: input.summary,
    note: input.note,
    status: input.action === "archive" ? "archived" : input.status,
  };
  let id: number;
  if (input.action === "create") {
    assertNameFree(db, g.kind, input.name!);
    id = insertRow(db, g.list.table, { ...columns, sort_order: UNPLACED });
  } else {
    id = input.id!;
    mustGet(db, g.kind, id, g.idPointer);
    if (input.name) assertNameFree(db, g.kind, input.name, id);
    updateColumns(db, g.list.table, id, columns);
  }
  if (input.order || input.action === "create") placeInList(db, g.list, id, input.order, "/order");
  return groupDto(mustGet<GroupRow>(db, g.kind, id));
}
