import { NbError } from "../core/errors.js";
import { type ChapterRow, chapterDto } from "./carrier.js";
import type { PlotContext } from "./context.js";
import { beatState } from "./promises.js";
import { getSceneDto, loadSceneSubjects, type SceneRow } from "./scenes.js";
import { mustGet } from "./store.js";
import { type ThreadRow, threadDto } from "./threads.js";
import type { SceneWorldContext } from "./world-link.js";

/** Compact scene rows of a thread or chapter, in the given order. */
function compactScenes(
  pc: PlotContext,
  whereSql: string,
  id: number,
  order: string,
  includeArchived: boolean,
) {
  const rows = pc.db
    .prepare(
      `SELECT id, title, status, thread_id AS threadId, chapter_id AS chapterId, outcome_type AS outcomeType,
              start_instant AS startInstant, end_instant AS endInstant
       FROM story_scene WHERE ${whereSql} = ? ${includeArchived ? "" : "AND status <> 'archived'"} ORDER BY ${order}, id`,
    )
    .all(id) as {
    id: number;
    title: string;
    status: string;
    threadId: number;
    chapterId: number | null;
    outcomeType: string | null;
    startInstant: number | null;
    endInstant: number | null;
  }[];
  return rows.map((r) => ({ ...r, anchored: r.startInstant !== null && r.endInstant !== null }));
}

/** A thread with its scenes (compact, in causal order). */
export function getThreadDetail(pc: PlotContext, id: number, opts: { includeArchived?: boolean } = {}) {
  const row = mustGet<ThreadRow>(pc.db, "thread", id, "/threadId");
  return {
    ...threadDto(row),
    scenes: compactScenes(pc, "thread_id", id, "thread_sort_order", opts.includeArchived === true),
  };
}

/** A chapter with its brief and its live scenes (compact, in chapter order). */
export function getChapterDetail(pc: PlotContext, id: number, opts: { includeArchived?: boolean } = {}) {
  const row = mustGet<ChapterRow>(pc.db, "chapter", id, "/chapterId");
  const scenes = compactScenes(pc, "chapter_id", id, "chapter_sort_order", opts.includeArchived === true);
  const archived = (
    pc.db
      .prepare("SELECT count(*) AS n FROM story_scene WHERE chapter_id = ? AND status = 'archived'")
      .get(id) as { n: number }
  ).n;
  return { chapter: chapterDto(row), scenes, archivedScenes: archived };
}

const NEIGHBOURS = 2;

/**
 * A scene with what surrounds it: its thread (without the full scene list), its nearest
 * neighbours in the thread, its chapter (compact) and the promise beats it carries.
 */
export function getSceneContext(pc: PlotContext, id: number) {
  const { db } = pc;
  const scene = getSceneDto(pc, id);
  const thread = threadDto(mustGet<ThreadRow>(db, "thread", scene.threadId));
  const near = (op: string, dir: string) =>
    db
      .prepare(
        `SELECT id, title, status FROM story_scene WHERE thread_id = ? AND thread_sort_order ${op} ? AND status <> 'archived'
         ORDER BY thread_sort_order ${dir} LIMIT ?`,
      )
      .all(scene.threadId, scene.threadSortOrder, NEIGHBOURS) as {
      id: number;
      title: string;
      status: string;
    }[];
  const chapter = scene.chapterId
    ? (db
        .prepare(
          `SELECT id, name, title, status, (SELECT count(*) FROM story_scene x WHERE x.chapter_id = c.id AND x.status <> 'archived') AS scenes
           FROM story_chapter c WHERE id = ?`,
        )
        .get(scene.chapterId) as Record<string, unknown>)
    : null;
  const beats = (
    db
      .prepare(
        `SELECT b.id, b.kind, b.note, p.id AS promiseId, p.name AS promiseName, p.title AS promiseTitle, p.status AS promiseStatus
         FROM story_promise_beat b JOIN story_promise p ON p.id = b.promise_id WHERE b.scene_id = ? ORDER BY b.id`,
      )
      .all(id) as Record<string, unknown>[]
  ).map((b) => ({ ...b, state: beatState(scene.status) }));
  return {
    scene,
    thread,
    previousInThread: near("<", "DESC").reverse(),
    nextInThread: near(">", "ASC"),
    chapter,
    promiseBeats: beats,
  };
}

/** The subjects a scene asks the world about: its subjects plus its location, de-duplicated. */
export function sceneQuerySubjects(subjects: string[], location: string | null): string[] {
  return [...new Set(location ? [...subjects, location] : subjects)];
}

/**
 * The world around one scene: slices in its closed time range that touch its subjects (with patch
 * counts), each subject's state at the scene's end, and the subject ids the world does not know.
 */
export function getSceneWorldContext(
  pc: PlotContext,
  id: number,
): { sceneId: number; startTime: string | null; endTime: string | null } & SceneWorldContext {
  const row = mustGet<SceneRow>(pc.db, "scene", id, "/sceneId");
  if (row.start_instant === null || row.end_instant === null) {
    throw new NbError(
      "invalid_input",
      `Scene ${id} has no time range: set worldAnchor.startTime and endTime with save_story_scene first`,
      { fields: [{ pointer: "/sceneId", message: "scene has no time range" }] },
    );
  }
  if (!pc.world) throw new NbError("unsupported", "This project has no World Engine to ask");
  const subjects = sceneQuerySubjects(loadSceneSubjects(pc.db, [id]).get(id)!, row.location_subject_id);
  const ctx = pc.world
    .sceneContexts([{ sceneId: id, start: row.start_instant, end: row.end_instant, subjectIds: subjects }])
    .get(id)!;
  return {
    sceneId: id,
    startTime: pc.world.formatTime(row.start_instant),
    endTime: pc.world.formatTime(row.end_instant),
    ...ctx,
  };
}
