import { parseOrThrow } from "../core/validate.js";
import type { PlotContext } from "./context.js";
import { SaveThreadInput } from "./inputs.js";
import { placeInList, renumberList, threadsOfPhase, UNPLACED } from "./order.js";
import { assertNameFree, cleanTags, insertRow, mustGet, parseStringArray, updateColumns } from "./store.js";

export interface ThreadRow {
  id: number;
  phase_id: number | null;
  sort_order: number;
  name: string;
  title: string;
  is_main: number;
  status: string;
  mice_type: string | null;
  summary: string;
  tags: string;
  writing_tip: string | null;
  note: string | null;
  created_at: string;
  updated_at: string;
}

/** Thread row → DTO. */
export function threadDto(r: ThreadRow) {
  return {
    id: r.id,
    phaseId: r.phase_id,
    sortOrder: r.sort_order,
    name: r.name,
    title: r.title,
    isMain: r.is_main === 1,
    status: r.status,
    miceType: r.mice_type,
    summary: r.summary,
    tags: parseStringArray(r.tags),
    writingTip: r.writing_tip,
    note: r.note,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
export type ThreadDto = ReturnType<typeof threadDto>;

/** Create, update or archive a thread; threads are ordered within their phase (or the ungrouped bucket). */
export function saveThread(pc: PlotContext, raw: unknown): ThreadDto {
  const input = parseOrThrow(SaveThreadInput, raw);
  const { db } = pc;
  return db.transaction(() => {
    if (input.phaseId != null) mustGet(db, "phase", input.phaseId, "/phaseId");
    const columns = {
      phase_id: input.phaseId,
      name: input.name,
      title: input.title,
      is_main: input.isMain,
      status: input.action === "archive" ? "archived" : input.status,
      mice_type: input.miceType,
      summary: input.summary,
      tags: input.tags ? JSON.stringify(cleanTags(input.tags)) : undefined,
      writing_tip: input.writingTip,
      note: input.note,
    };
    let id: number;
    let oldPhase: number | null | undefined;
    if (input.action === "create") {
      assertNameFree(db, "thread", input.name!);
      id = insertRow(db, "story_thread", { ...columns, sort_order: UNPLACED });
    } else {
      id = input.threadId!;
      const row = mustGet<ThreadRow>(db, "thread", id, "/threadId");
      if (input.name) assertNameFree(db, "thread", input.name, id);
      if (input.phaseId !== undefined && input.phaseId !== row.phase_id) oldPhase = row.phase_id;
      updateColumns(db, "story_thread", id, columns);
    }
    const row = mustGet<ThreadRow>(db, "thread", id);
    if (input.action === "create" || input.order || oldPhase !== undefined) {
      placeInList(db, threadsOfPhase(row.phase_id), id, input.order, "/order");
    }
    if (oldPhase !== undefined) renumberList(db, threadsOfPhase(oldPhase));
    return threadDto(mustGet<ThreadRow>(db, "thread", id));
  })();
}
