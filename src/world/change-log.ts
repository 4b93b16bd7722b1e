import type Database from "better-sqlite3";
import { z } from "zod";
import { inRowLog, type RowChange, type RowLogSpec, revertRows, rowChanges } from "../core/row-log.js";
import type { Issue } from "./api.js";
import type { World } from "./world.js";

/** The World Engine's log tables (its truth; everything else is derived from them and re-derived). */
const WORLD_LOG: RowLogSpec = { logTable: "history_row", tables: ["subjects", "slices", "patches"] };

/** How a person names a World Engine row: `slice s-12`, `patch p-3 of slice s-12`, `subject ana`. */
function rowName(table: string, key: unknown[]): string {
  const label = table === "subjects" ? "subject" : table === "slices" ? "slice" : "patch";
  return `${label} ${String(key[0])}`;
}

/**
 * Run `fn` inside the World's open transaction (a script's), logging every log row it touches
 * under `changeId` in that transaction.
 */
export function recordWorldRows<T>(db: Database.Database, changeId: string, fn: () => T): T {
  return inRowLog(db, WORLD_LOG, changeId, fn);
}

const Json = z.record(z.string(), z.unknown());

/** A patch as `history show` lists it (its stored value parsed). */
const PatchViewSchema = z
  .object({
    patchId: z.string(),
    subjectId: z.string(),
    instant: z.number(),
    seq: z.number(),
    path: z.string(),
    op: z.string(),
    value: z.unknown().optional(),
    summary: z.string().nullable(),
  })
  .strict();

const Op = z.enum(["insert", "update", "delete"]);

/** One slice a change touched: its own row (when that changed) and each patch of it that changed. */
const WorldSliceDiffSchema = z
  .object({
    sliceId: z.string(),
    slice: z.object({ op: Op, before: Json.nullable(), after: Json.nullable() }).strict().nullable(),
    patches: z.array(
      z.object({ op: Op, before: PatchViewSchema.nullable(), after: PatchViewSchema.nullable() }).strict(),
    ),
  })
  .strict();
export type WorldSliceDiff = z.infer<typeof WorldSliceDiffSchema>;

/** What a change did to the World Engine: a patch list per slice, and the subjects it registered or renamed. */
export const WorldChangeSchema = z
  .object({
    slices: z.array(WorldSliceDiffSchema),
    subjects: z.array(z.object({ op: Op, before: Json.nullable(), after: Json.nullable() }).strict()),
  })
  .strict();
export type WorldChange = z.infer<typeof WorldChangeSchema>;

function opOf(c: RowChange): z.infer<typeof Op> {
  return c.before === null ? "insert" : c.after === null ? "delete" : "update";
}

function patchView(image: Record<string, unknown> | null): z.infer<typeof PatchViewSchema> | null {
  if (image === null) return null;
  const value = image.value;
  return {
    patchId: String(image.id),
    subjectId: String(image.subject_id),
    instant: Number(image.instant),
    seq: Number(image.seq),
    path: String(image.path),
    op: String(image.op),
    ...(typeof value === "string" ? { value: JSON.parse(value) } : {}),
    summary: typeof image.summary === "string" ? image.summary : null,
  };
}

function changeOf(rows: RowChange[]): WorldChange {
  const slices = new Map<string, WorldSliceDiff>();
  const slice = (id: string) => {
    let s = slices.get(id);
    if (!s) {
      s = { sliceId: id, slice: null, patches: [] };
      slices.set(id, s);
    }
    return s;
  };
  const subjects: WorldChange["subjects"] = [];
  for (const c of rows) {
    if (c.table === "slices")
      slice(String(c.key[0])).slice = { op: opOf(c), before: c.before, after: c.after };
    else if (c.table === "patches") {
      const image = c.after ?? c.before;
      slice(String(image?.slice_id)).patches.push({
        op: opOf(c),
        before: patchView(c.before),
        after: patchView(c.after),
      });
    } else subjects.push({ op: opOf(c), before: c.before, after: c.after });
  }
  return { slices: [...slices.values()], subjects };
}

/** What a change did to the World Engine (empty lists: nothing there). */
export function worldRowChanges(db: Database.Database, changeId: string): WorldChange {
  return changeOf(rowChanges(db, WORLD_LOG, changeId));
}

/** The patches and subjects the rows name, as the World re-derives them. */
function touchedBy(rows: RowChange[]) {
  const patches: Array<{ subjectId: string; path: string; instant: number }> = [];
  const subjects = new Set<string>();
  for (const c of rows) {
    for (const image of [c.before, c.after]) {
      if (image === null) continue;
      if (c.table === "patches")
        patches.push({
          subjectId: String(image.subject_id),
          path: String(image.path),
          instant: Number(image.instant),
        });
      if (c.table === "subjects") subjects.add(String(image.id));
    }
  }
  return { patches, subjects: [...subjects] };
}

/** The result of a World Engine revert: what it changed, and the issues the subjects it touched have now. */
export interface WorldRevert {
  change: WorldChange;
  issues: Issue[];
}

/**
 * Undo changes' World Engine rows (newest first) in one transaction logged under `newChangeId`, re-deriving the
 * touched subjects (the World Engine's checks run again: their issues are returned). Refused with
 * `conflict` and nothing changed when a row changed since (both versions shown) or when the result
 * would break the log's rules (two slices at one instant); `not_found` when the change logged no rows here.
 */
export function revertWorldChange(
  world: World,
  changeIds: string | readonly string[],
  newChangeId: string,
): WorldRevert {
  let issues: Issue[] = [];
  const rows = revertRows(world.db, WORLD_LOG, changeIds, newChangeId, {
    name: rowName,
    check: (restored) => {
      const t = touchedBy(restored);
      issues = world.rederive(t.patches, t.subjects);
    },
  });
  return { change: changeOf(rows), issues };
}
