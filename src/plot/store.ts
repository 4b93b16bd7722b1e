import { NbError } from "../core/errors.js";
import type { PlotDb } from "./db.js";

/** Current time as stored in created_at/updated_at. */
export function nowIso(): string {
  return new Date().toISOString();
}

/** The plot tables an id can point into, with the label used in messages. */
export const ENTITY = {
  act: { table: "story_act", label: "act" },
  chapter: { table: "story_chapter", label: "chapter" },
  phase: { table: "story_phase", label: "phase" },
  thread: { table: "story_thread", label: "thread" },
  scene: { table: "story_scene", label: "scene" },
  promise: { table: "story_promise", label: "promise" },
  decision: { table: "story_decision", label: "decision" },
} as const;
export type EntityKind = keyof typeof ENTITY;

/** Load one row by id or throw `not_found` naming the kind (and the input field, when given). */
export function mustGet<T>(db: PlotDb, kind: EntityKind, id: number, pointer?: string): T {
  const row = db.prepare(`SELECT * FROM ${ENTITY[kind].table} WHERE id = ?`).get(id) as T | undefined;
  if (!row) {
    throw new NbError("not_found", `No ${ENTITY[kind].label} with id ${id}`, {
      fields: pointer ? [{ pointer, message: `no ${ENTITY[kind].label} with this id` }] : undefined,
    });
  }
  return row;
}

/** True when a row with this id exists. */
export function exists(db: PlotDb, kind: EntityKind, id: number): boolean {
  return db.prepare(`SELECT 1 FROM ${ENTITY[kind].table} WHERE id = ?`).get(id) !== undefined;
}

/** Throw `conflict` when another row of the kind already has this name. */
export function assertNameFree(db: PlotDb, kind: EntityKind, name: string, exceptId?: number): void {
  const row = db.prepare(`SELECT id FROM ${ENTITY[kind].table} WHERE name = ?`).get(name) as
    | { id: number }
    | undefined;
  if (row && row.id !== exceptId) {
    throw new NbError("conflict", `A ${ENTITY[kind].label} named "${name}" already exists (id ${row.id})`, {
      fields: [{ pointer: "/name", message: "name already taken" }],
    });
  }
}

/** Parse a JSON string array column tolerantly (anything else reads as []). */
export function parseStringArray(text: string | null | undefined): string[] {
  if (!text) return [];
  try {
    const v = JSON.parse(text);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}

/** Parse a JSON array of objects tolerantly. */
export function parseObjectArray<T>(text: string | null | undefined): T[] {
  if (!text) return [];
  try {
    const v = JSON.parse(text);
    return Array.isArray(v) ? v.filter((x) => x && typeof x === "object") : [];
  } catch {
    return [];
  }
}

/** Trim, drop duplicates, keep order. */
export function cleanTags(tags: string[]): string[] {
  return [...new Set(tags.map((t) => t.trim()).filter(Boolean))];
}

/** The column → value pairs that are set (not undefined), booleans stored as 0/1. */
function setColumns(values: Record<string, unknown>): [string, unknown][] {
  return Object.entries(values)
    .filter(([, v]) => v !== undefined)
    .map(([c, v]) => [c, typeof v === "boolean" ? (v ? 1 : 0) : v]);
}

/**
 * Insert a row from column → value pairs plus created_at/updated_at, and return its id. Undefined
 * values are left out, so the column takes its schema default.
 */
export function insertRow(db: PlotDb, table: string, values: Record<string, unknown>): number {
  const cols = setColumns(values);
  const now = nowIso();
  const names = [...cols.map(([c]) => c), "created_at", "updated_at"];
  return Number(
    db
      .prepare(`INSERT INTO ${table} (${names.join(", ")}) VALUES (${names.map(() => "?").join(", ")})`)
      .run(...cols.map(([, v]) => v), now, now).lastInsertRowid,
  );
}

/**
 * Build an UPDATE for the given column → value pairs (skipping undefined) plus updated_at, and run
 * it. Returns true when anything was set.
 */
export function updateColumns(
  db: PlotDb,
  table: string,
  id: number,
  values: Record<string, unknown>,
): boolean {
  const cols = setColumns(values);
  if (cols.length === 0) return false;
  const sets = cols.map(([c]) => `${c} = ?`).join(", ");
  db.prepare(`UPDATE ${table} SET ${sets}, updated_at = ? WHERE id = ?`).run(
    ...cols.map(([, v]) => v),
    nowIso(),
    id,
  );
  return true;
}
