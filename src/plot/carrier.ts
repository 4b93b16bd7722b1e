import { parseOrThrow } from "../core/validate.js";
import type { PlotContext } from "./context.js";
import { type GroupDto, saveGroup } from "./groups.js";
import { SaveActInput, SaveChapterInput } from "./inputs.js";
import { ACT_ORDER, CHAPTER_ORDER, placeInList, UNPLACED } from "./order.js";
import { BRIEF_KEYS, type BriefKey } from "./schemas.js";
import { assertNameFree, insertRow, mustGet, updateColumns } from "./store.js";

export interface ChapterRow {
  id: number;
  act_id: number | null;
  sort_order: number;
  name: string;
  title: string;
  note: string | null;
  status: string;
  created_at: string;
  updated_at: string;
  [brief: `brief_${string}`]: string | null;
}

/** Column of each brief field. */
export const BRIEF_COLUMN: Record<BriefKey, string> = Object.fromEntries(
  BRIEF_KEYS.map((k) => [k, `brief_${k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`]),
) as Record<BriefKey, string>;

export type ChapterBrief = Record<BriefKey, string | null>;

/** The 11 brief fields of a chapter row. */
export function chapterBrief(r: ChapterRow): ChapterBrief {
  return Object.fromEntries(
    BRIEF_KEYS.map((k) => [k, r[BRIEF_COLUMN[k] as `brief_${string}`] ?? null]),
  ) as ChapterBrief;
}

/** Chapter row → DTO (brief included). */
export function chapterDto(r: ChapterRow) {
  return {
    id: r.id,
    actId: r.act_id,
    name: r.name,
    title: r.title,
    status: r.status,
    sortOrder: r.sort_order,
    note: r.note,
    brief: chapterBrief(r),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
export type ChapterDto = ReturnType<typeof chapterDto>;

/** Create, update or archive an act; keeps act order contiguous. */
export function saveAct(pc: PlotContext, raw: unknown): GroupDto {
  const { actId, ...input } = parseOrThrow(SaveActInput, raw);
  return pc.db.transaction(() =>
    saveGroup(pc.db, { kind: "act", list: ACT_ORDER, idPointer: "/actId" }, { ...input, id: actId }),
  )();
}

/** Create, update or archive a chapter; chapter order is story-wide and kept contiguous. */
export function saveChapter(pc: PlotContext, raw: unknown): ChapterDto {
  const input = parseOrThrow(SaveChapterInput, raw);
  const { db } = pc;
  return db.transaction(() => {
    if (input.actId != null) mustGet(db, "act", input.actId, "/actId");
    const columns: Record<string, unknown> = {
      act_id: input.actId,
      name: input.name,
      title: input.title,
      note: input.note,
      status: input.action === "archive" ? "archived" : input.status,
    };
    for (const [k, v] of Object.entries(input.brief ?? {})) columns[BRIEF_COLUMN[k as BriefKey]] = v;
    let id: number;
    if (input.action === "create") {
      assertNameFree(db, "chapter", input.name!);
      id = insertRow(db, "story_chapter", { ...columns, sort_order: UNPLACED });
    } else {
      id = input.chapterId!;
      mustGet(db, "chapter", id, "/chapterId");
      if (input.name) assertNameFree(db, "chapter", input.name, id);
      updateColumns(db, "story_chapter", id, columns);
    }
    if (input.order || input.action === "create") placeInList(db, CHAPTER_ORDER, id, input.order, "/order");
    return chapterDto(mustGet<ChapterRow>(db, "chapter", id));
  })();
}
