import { z } from "zod";
import { CanonicalWriteSchema } from "../../world/script/canonical.js";
import type { BasisSpec } from "../types.js";

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

/** The basis of execute_world's approvals; one that does not parse is a `conflict`. */
export const WORLD_BASIS: BasisSpec<WorldBasis> = {
  schema: WorldBasisSchema,
  mismatch:
    "The approval does not carry the writes its preview showed; nothing was stored. Run the call again to preview it.",
};
