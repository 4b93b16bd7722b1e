import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { CanonicalWriteSchema } from "../../world/script/canonical.js";

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
