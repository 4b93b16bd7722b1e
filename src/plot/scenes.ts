import { NbError } from "../core/errors.js";
import { parseOrThrow } from "../core/validate.js";
import type { PlotContext } from "./context.js";
import type { PlotDb } from "./db.js";
import { SaveSceneInput, type SaveSceneInput as SaveSceneInputT } from "./inputs.js";
import { placeInList, renumberList, scenesOfChapter, scenesOfThread, UNPLACED } from "./order.js";
import { promisesWithBeatsOn, reopenPayofflessPromises } from "./promise-rules.js";
import { formatRef, resolveRef } from "./refs.js";
import { insertRow, mustGet, updateColumns } from "./store.js";
import type { PlotWorld } from "./world-link.js";

export interface SceneRow {
  id: number;
  thread_id: number;
  chapter_id: number | null;
  thread_sort_order: number;
  chapter_sort_order: number | null;
  title: string;
  status: string;
  outcome_type: string | null;
  pacing_role: string | null;
  summary: string;
  purpose: string | null;
  writing_tip: string | null;
  note: string | null;
  start_instant: number | null;
  end_instant: number | null;
  location_subject_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface WorldAnchor {
  startInstant: number | null;
  endInstant: number | null;
  startTime: string | null;
  endTime: string | null;
  subjectIds: string[];
  locationSubjectId: string | null;
}

export interface SceneRefDto {
  relation: string;
  target: string;
  targetKind: "content" | "thread" | "scene";
  visibility: string;
  note: string | null;
}

/** Subject ids of many scenes in one query, in each scene's order. */
export function loadSceneSubjects(db: PlotDb, sceneIds: number[]): Map<number, string[]> {
  const out = new Map<number, string[]>(sceneIds.map((id) => [id, []]));
  if (sceneIds.length === 0) return out;
  const rows = db
    .prepare(
      "SELECT scene_id, subject_id FROM story_scene_subject WHERE scene_id IN (SELECT value FROM json_each(?)) ORDER BY scene_id, sort_order",
    )
    .all(JSON.stringify(sceneIds)) as { scene_id: number; subject_id: string }[];
  for (const r of rows) out.get(r.scene_id)?.push(r.subject_id);
  return out;
}

/** Refs of many scenes in one query. */
export function loadSceneRefs(db: PlotDb, sceneIds: number[]): Map<number, SceneRefDto[]> {
  const out = new Map<number, SceneRefDto[]>(sceneIds.map((id) => [id, []]));
  if (sceneIds.length === 0) return out;
  const rows = db
    .prepare(
      "SELECT * FROM story_scene_ref WHERE scene_id IN (SELECT value FROM json_each(?)) ORDER BY scene_id, sort_order",
    )
    .all(JSON.stringify(sceneIds)) as {
    scene_id: number;
    relation: string;
    target_kind: "content" | "thread" | "scene";
    target_path: string | null;
    target_thread_id: number | null;
    target_scene_id: number | null;
    visibility: string;
    note: string | null;
  }[];
  for (const r of rows) {
    const target =
      r.target_kind === "content"
        ? r.target_path!
        : formatRef({ kind: r.target_kind, id: (r.target_thread_id ?? r.target_scene_id)! });
    out.get(r.scene_id)?.push({
      relation: r.relation,
      target,
      targetKind: r.target_kind,
      visibility: r.visibility,
      note: r.note,
    });
  }
  return out;
}

/** The world anchor of a scene row, with calendar strings when the project has a calendar. */
export function worldAnchor(r: SceneRow, subjects: string[], world: PlotWorld | null): WorldAnchor {
  return {
    startInstant: r.start_instant,
    endInstant: r.end_instant,
    startTime: r.start_instant === null ? null : (world?.formatTime(r.start_instant) ?? null),
    endTime: r.end_instant === null ? null : (world?.formatTime(r.end_instant) ?? null),
    subjectIds: subjects,
    locationSubjectId: r.location_subject_id,
  };
}

/** Scene row → DTO (anchor included, refs when given). */
export function sceneDto(r: SceneRow, subjects: string[], world: PlotWorld | null, refs?: SceneRefDto[]) {
  return {
    id: r.id,
    threadId: r.thread_id,
    chapterId: r.chapter_id,
    threadSortOrder: r.thread_sort_order,
    chapterSortOrder: r.chapter_sort_order,
    title: r.title,
    status: r.status,
    outcomeType: r.outcome_type,
    pacingRole: r.pacing_role,
    summary: r.summary,
    purpose: r.purpose,
    writingTip: r.writing_tip,
    note: r.note,
    worldAnchor: worldAnchor(r, subjects, world),
    ...(refs ? { refs } : {}),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
export type SceneDto = ReturnType<typeof sceneDto>;

/** One scene as a DTO with refs. */
export function getSceneDto(pc: PlotContext, id: number): SceneDto {
  const row = mustGet<SceneRow>(pc.db, "scene", id, "/sceneId");
  return sceneDto(
    row,
    loadSceneSubjects(pc.db, [id]).get(id)!,
    pc.world,
    loadSceneRefs(pc.db, [id]).get(id)!,
  );
}

/**
 * One end of a world anchor from its calendar string or instant (the input allows at most one of
 * them non-null): the instant, null to clear, or undefined when neither is given.
 */
function toInstant(
  pc: PlotContext,
  text: string | null | undefined,
  instant: number | null | undefined,
  key: string,
): number | null | undefined {
  if (instant != null) return instant;
  if (text === undefined || text === null) return text === null || instant === null ? null : undefined;
  if (!pc.world) {
    throw new NbError(
      "unsupported",
      `No World Engine calendar in this project: give ${key}Instant (seconds) instead of ${key}Time`,
      {
        fields: [{ pointer: `/worldAnchor/${key}Time`, message: "no calendar to parse it" }],
      },
    );
  }
  try {
    return pc.world.parseTime(text);
  } catch (e) {
    if (e instanceof NbError && e.code === "config_error") throw e;
    const msg = e instanceof Error ? e.message : String(e);
    throw new NbError("invalid_input", `/worldAnchor/${key}Time: ${msg}`, {
      fields: [{ pointer: `/worldAnchor/${key}Time`, message: msg }],
    });
  }
}

function writeRefs(db: PlotDb, sceneId: number, refs: NonNullable<SaveSceneInputT["refs"]>): void {
  const seen = new Set<string>();
  const resolved = refs.map((r, i) => {
    const t = resolveRef(db, r.target, ["content", "thread", "scene"], `/refs/${i}/target`);
    const key = `${r.relation}\u0000${formatRef(t)}`;
    if (seen.has(key)) {
      throw new NbError("invalid_input", `/refs/${i}: duplicate ref (same relation and target)`, {
        fields: [{ pointer: `/refs/${i}`, message: "duplicate ref" }],
      });
    }
    seen.add(key);
    return { r, t };
  });
  db.prepare("DELETE FROM story_scene_ref WHERE scene_id = ?").run(sceneId);
  const ins = db.prepare(
    `INSERT INTO story_scene_ref (scene_id, sort_order, relation, target_kind, target_path, target_thread_id, target_scene_id, visibility, note)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  resolved.forEach(({ r, t }, i) => {
    ins.run(
      sceneId,
      i,
      r.relation,
      t.kind,
      t.kind === "content" ? t.path : null,
      t.kind === "thread" ? t.id : null,
      t.kind === "scene" ? t.id : null,
      r.visibility ?? "author",
      r.note ?? null,
    );
  });
}

function writeSubjects(db: PlotDb, sceneId: number, ids: string[]): void {
  db.prepare("DELETE FROM story_scene_subject WHERE scene_id = ?").run(sceneId);
  const ins = db.prepare(
    "INSERT INTO story_scene_subject (scene_id, sort_order, subject_id) VALUES (?, ?, ?)",
  );
  for (const [i, s] of ids.entries()) ins.run(sceneId, i, s);
}

/** Create, update or archive a scene: thread and chapter order, world anchor, refs, promise rules. */
export function saveScene(pc: PlotContext, raw: unknown): SceneDto {
  const input = parseOrThrow(SaveSceneInput, raw);
  const { db } = pc;
  return db.transaction(() => {
    if (input.threadId !== undefined) mustGet(db, "thread", input.threadId, "/threadId");
    if (input.chapterId != null) mustGet(db, "chapter", input.chapterId, "/chapterId");
    const a = input.worldAnchor;
    const start = toInstant(pc, a?.startTime, a?.startInstant, "start");
    const end = toInstant(pc, a?.endTime, a?.endInstant, "end");

    const columns = {
      thread_id: input.threadId,
      title: input.title,
      status: input.action === "archive" ? "archived" : input.status,
      outcome_type: input.outcomeType,
      pacing_role: input.pacingRole,
      summary: input.summary,
      purpose: input.purpose,
      writing_tip: input.writingTip,
      note: input.note,
    };
    let id: number;
    let before: SceneRow | null = null;
    if (input.action === "create") {
      id = insertRow(db, "story_scene", { ...columns, thread_sort_order: UNPLACED });
    } else {
      id = input.sceneId!;
      before = mustGet<SceneRow>(db, "scene", id, "/sceneId");
      updateColumns(db, "story_scene", id, columns);
    }

    const cur = mustGet<SceneRow>(db, "scene", id);
    const newStart = start === undefined ? cur.start_instant : start;
    const newEnd = end === undefined ? cur.end_instant : end;
    if (newStart !== null && newEnd !== null && newStart > newEnd) {
      throw new NbError("invalid_input", "/worldAnchor: the scene ends before it starts", {
        fields: [{ pointer: "/worldAnchor/endTime", message: "must not be before the start" }],
      });
    }
    if (a) {
      updateColumns(db, "story_scene", id, {
        start_instant: start,
        end_instant: end,
        location_subject_id: a.locationSubjectId,
      });
      if (a.subjectIds) writeSubjects(db, id, a.subjectIds);
    }
    if (input.refs) writeRefs(db, id, input.refs);

    // Thread order: append on create or move, place on request, close the gap in the old thread.
    const threadChanged = before !== null && before.thread_id !== cur.thread_id;
    if (input.action === "create" || input.threadOrder || threadChanged) {
      placeInList(db, scenesOfThread(cur.thread_id), id, input.threadOrder, "/threadOrder");
    }
    if (threadChanged) renumberList(db, scenesOfThread(before!.thread_id));

    // Chapter order: same rules; a scene out of any chapter has no chapter order.
    const oldChapter = before ? before.chapter_id : null;
    const newChapter = input.chapterId === undefined ? oldChapter : input.chapterId;
    if (input.chapterOrder && newChapter === null) {
      throw new NbError("invalid_input", "/chapterOrder: the scene is not in a chapter", {
        fields: [{ pointer: "/chapterOrder", message: "the scene is not in a chapter" }],
      });
    }
    if (newChapter !== oldChapter || input.chapterOrder) {
      if (newChapter === null) {
        db.prepare("UPDATE story_scene SET chapter_id = NULL, chapter_sort_order = NULL WHERE id = ?").run(
          id,
        );
      } else {
        if (newChapter !== oldChapter) {
          db.prepare("UPDATE story_scene SET chapter_id = ?, chapter_sort_order = ? WHERE id = ?").run(
            newChapter,
            UNPLACED,
            id,
          );
        }
        placeInList(db, scenesOfChapter(newChapter), id, input.chapterOrder, "/chapterOrder");
      }
      if (oldChapter !== null && oldChapter !== newChapter) renumberList(db, scenesOfChapter(oldChapter));
    }

    // Archiving takes the scene's payoffs out of every promise's count.
    if (before && before.status !== "archived" && mustGet<SceneRow>(db, "scene", id).status === "archived") {
      reopenPayofflessPromises(db, promisesWithBeatsOn(db, [id]));
    }
    return getSceneDto(pc, id);
  })();
}
