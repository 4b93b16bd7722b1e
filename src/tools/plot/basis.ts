import { createHash } from "node:crypto";
import { z } from "zod";
import { NbError } from "../../core/errors.js";
import type { PlotDb } from "../../plot/db.js";
import { ENTITY, type EntityKind } from "../../plot/store.js";
import type { BasisSpec, ToolPreview } from "../types.js";

/** A stored row a plot write's preview named: its kind, id and content hash (null: it did not exist). */
const RowPin = z.object({ kind: z.string(), id: z.number().int(), sha256: z.string().nullable() }).strict();

/** What a plot write's approval is pinned to: the rows its preview described, as they were then. */
const PlotBasisSchema = z.object({ rows: z.array(RowPin) }).strict();
export type PlotBasis = z.infer<typeof PlotBasisSchema>;

/** The basis of a plot write tool's approvals. */
export function plotBasisSpec(tool: string): BasisSpec<PlotBasis> {
  return {
    schema: PlotBasisSchema,
    mismatch: `The approval does not match this ${tool} call; nothing was changed`,
  };
}

/** A row's content hash, or null when there is no such row. */
function rowHash(db: PlotDb, kind: EntityKind, id: number): string | null {
  const row = db.prepare(`SELECT * FROM ${ENTITY[kind].table} WHERE id = ?`).get(id);
  return row === undefined ? null : createHash("sha256").update(JSON.stringify(row)).digest("hex");
}

/** Pin the rows a preview describes (an update or archive names one; a beat names a promise and a scene). */
export function plotBasis(db: PlotDb, rows: { kind: EntityKind; id: number }[]): PlotBasis {
  return { rows: rows.map((r) => ({ ...r, sha256: rowHash(db, r.kind, r.id) })) };
}

/**
 * Refuse an approved plot write whose rows changed after the preview the user approved (a hand
 * edit, another agent): `conflict` with the change as it would apply now. Runs in the caller's
 * transaction, so nothing can slip in between this check and the save.
 */
export function assertRowsUnchanged(
  db: PlotDb,
  basis: PlotBasis | undefined,
  tool: string,
  previewNow: () => ToolPreview,
): void {
  if (basis === undefined) return;
  const changed = basis.rows.filter(
    (r) => !(r.kind in ENTITY) || rowHash(db, r.kind as EntityKind, r.id) !== r.sha256,
  );
  if (!changed.length) return;
  const now = previewNow();
  throw new NbError(
    "conflict",
    `${changed.map((r) => `${r.kind} ${r.id}`).join(", ")} changed after the preview the user approved, so nothing was changed. The ${tool} call as it would apply now:\n${now.text}\nCall ${tool} again to ask the user to approve the change as it stands.`,
    { details: { changed: changed.map((r) => ({ kind: r.kind, id: r.id })), preview: now } },
  );
}
