import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { PATCH_OPS, type WriteRecord } from "../api.js";

/** Slice fields a write or edit call set that the write record does not carry. */
export interface SliceMeta {
  summary?: string;
  kind?: string;
}

const CanonicalPatchSchema = z
  .object({
    subjectId: z.string(),
    path: z.string(),
    op: z.enum(PATCH_OPS),
    value: z.unknown().optional(),
    summary: z.string().optional(),
  })
  .strict();

/**
 * One write of a script, by content: the slice is named by its id when it existed before the
 * script ran, and as `new#n` when the script created it (its id is random, so it differs between
 * two runs that do the same thing). Patch ids are left out for the same reason.
 */
export const CanonicalWriteSchema = z
  .object({
    action: z.enum(["write", "edit", "delete"]),
    slice: z.string(),
    instant: z.number().int(),
    title: z.string(),
    summary: z.string().optional(),
    kind: z.string().optional(),
    patches: z.array(CanonicalPatchSchema),
  })
  .strict();
export type CanonicalWrite = z.infer<typeof CanonicalWriteSchema>;

/** The content of a script's writes, in order (see CanonicalWriteSchema); `metas[i]` belongs to `writes[i]`. */
export function canonicalWrites(
  writes: readonly WriteRecord[],
  metas: readonly SliceMeta[],
): CanonicalWrite[] {
  const created = new Map<string, string>();
  return writes.map((w, i) => {
    if (w.action === "write" && !created.has(w.sliceId)) created.set(w.sliceId, `new#${created.size + 1}`);
    const out: CanonicalWrite = {
      action: w.action,
      slice: created.get(w.sliceId) ?? w.sliceId,
      instant: w.instant,
      title: w.title,
      patches: w.patches.map(({ subjectId, path, op, value, summary }) => ({
        subjectId,
        path,
        op,
        ...(value === undefined ? {} : { value }),
        ...(summary === undefined ? {} : { summary }),
      })),
    };
    const meta = metas[i];
    if (meta?.summary !== undefined) out.summary = meta.summary;
    if (meta?.kind !== undefined) out.kind = meta.kind;
    return out;
  });
}

/** True when two lists of canonical writes have the same content (key order aside). */
export function sameWrites(a: readonly CanonicalWrite[], b: readonly CanonicalWrite[]): boolean {
  return isDeepStrictEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b)));
}
