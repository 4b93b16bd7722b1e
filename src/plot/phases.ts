import { parseOrThrow } from "../core/validate.js";
import type { PlotContext } from "./context.js";
import { type GroupDto, type GroupRow, groupDto, saveGroup } from "./groups.js";
import { SavePhaseInput } from "./inputs.js";
import { PHASE_ORDER } from "./order.js";

/**
 * Create, rename, move or archive a phase of the causal tree; keeps phase order contiguous. The
 * user's door only: the agent tool list is fixed, so phases have no save tool of their own.
 */
export function savePhase(pc: PlotContext, raw: unknown): GroupDto {
  const { phaseId, ...input } = parseOrThrow(SavePhaseInput, raw);
  return pc.db.transaction(() =>
    saveGroup(pc.db, { kind: "phase", list: PHASE_ORDER, idPointer: "/phaseId" }, { ...input, id: phaseId }),
  )();
}

/** Phases in story order with their live (non-archived) thread counts; archived phases only when asked. */
export function listPhases(
  pc: PlotContext,
  opts: { includeArchived?: boolean } = {},
): (GroupDto & { threads: number })[] {
  const rows = pc.db
    .prepare(
      `SELECT p.*, (SELECT count(*) FROM story_thread t WHERE t.phase_id = p.id AND t.status <> 'archived') AS threads
       FROM story_phase p ${opts.includeArchived ? "" : "WHERE p.status <> 'archived'"} ORDER BY p.sort_order, p.id`,
    )
    .all() as (GroupRow & { threads: number })[];
  return rows.map((r) => ({ ...groupDto(r), threads: r.threads }));
}
