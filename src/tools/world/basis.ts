import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { PATCH_OPS, type WriteRecord } from "../../world/api.js";

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
const CanonicalWriteSchema = z
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

const ClockSchema = z.object({ now: z.number().int(), seed: z.number().int() }).strict();

/**
 * What an execute_world approval is pinned to: the clock the dry run saw (`Date.now()` and the
 * `Math.random` seed) and the writes it recorded. The approved run replays the script with the same
 * clock and commits only if it makes exactly these writes.
 */
export const WorldBasisSchema = z
  .object({ tool: z.literal("execute_world"), clock: ClockSchema, writes: z.array(CanonicalWriteSchema) })
  .strict();
export type WorldBasis = z.infer<typeof WorldBasisSchema>;

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

/** The approved basis, or `conflict` when it is not one this tool made. */
export function parseBasis(value: unknown): WorldBasis {
  const r = WorldBasisSchema.safeParse(value);
  if (!r.success) {
    throw new NbError(
      "conflict",
      "The approval does not carry the writes its preview showed; nothing was stored. Run the call again to preview it.",
    );
  }
  return r.data;
}
