import { parseOrThrow } from "../core/validate.js";
import type { PlotContext } from "./context.js";
import { SaveThreadInput } from "./inputs.js";
import { bucketIds, placeId, writeOrder } from "./order.js";
import { assertNameFree, cleanTags, mustGet, nowIso, parseStringArray, updateColumns } from "./store.js";

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

function bucketWhere(phaseId: number | null): [string, unknown[]] {
  return phaseId === null ? ["phase_id IS NULL", []] : ["phase_id = ?", [phaseId]];
}

/** Create, update or archive a thread; threads are ordered within their phase (or the ungrouped bucket). */
export function saveThread(pc: PlotContext, raw: unknown): ThreadDto {
  const input = parseOrThrow(SaveThreadInput, raw);
  const { db } = pc;
  return db.transaction(() => {
    if (input.phaseId != null) mustGet(db, "phase", input.phaseId, "/phaseId");
    const tags = input.tags ? JSON.stringify(cleanTags(input.tags)) : undefined;
    let id: number;
    let oldPhase: number | null | undefined;
    if (input.action === "create") {
      assertNameFree(db, "thread", input.name!);
      const now = nowIso();
      id = Number(
        db
          .prepare(
            `INSERT INTO story_thread (phase_id, sort_order, name, title, is_main, status, mice_type, summary, tags, writing_tip, note, created_at, updated_at)
             VALUES (?, 1e9, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            input.phaseId ?? null,
            input.name,
            input.title,
            input.isMain ? 1 : 0,
            input.status ?? "draft",
            input.miceType ?? null,
            input.summary ?? "",
            tags ?? "[]",
            input.writingTip ?? null,
            input.note ?? null,
            now,
            now,
          ).lastInsertRowid,
      );
    } else {
      id = input.threadId!;
      const row = mustGet<ThreadRow>(db, "thread", id, "/threadId");
      if (input.name) assertNameFree(db, "thread", input.name, id);
      if (input.phaseId !== undefined && input.phaseId !== row.phase_id) oldPhase = row.phase_id;
      updateColumns(db, "story_thread", id, {
        phase_id: input.phaseId,
        name: input.name,
        title: input.title,
        is_main: input.isMain,
        status: input.action === "archive" ? "archived" : input.status,
        mice_type: input.miceType,
        summary: input.summary,
        tags,
        writing_tip: input.writingTip,
        note: input.note,
      });
    }
    const row = mustGet<ThreadRow>(db, "thread", id);
    if (input.action === "create" || input.order || oldPhase !== undefined) {
      const [where, params] = bucketWhere(row.phase_id);
      writeOrder(
        db,
        "story_thread",
        "sort_order",
        placeId(bucketIds(db, "story_thread", "sort_order", where, params), id, input.order, "/order"),
      );
    }
    if (oldPhase !== undefined) {
      const [where, params] = bucketWhere(oldPhase);
      writeOrder(
        db,
        "story_thread",
        "sort_order",
        bucketIds(db, "story_thread", "sort_order", where, params),
      );
    }
    return threadDto(mustGet<ThreadRow>(db, "thread", id));
  })();
}
