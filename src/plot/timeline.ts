import type { PlotContext } from "./context.js";
import { loadSceneSubjects, type SceneRow } from "./scenes.js";

export interface TimelineOptions {
  /** Only scenes this World Engine subject is in, or takes place at. */
  subjectId?: string;
}

/**
 * The live scenes with where each stands in the book and in story time. `position` numbers the
 * scenes placed in chapters in reading order (acts, their chapters, then chapters outside any act;
 * scenes by their place in the chapter), so a flashback shows as a scene whose position is later
 * than its time. Scenes not in a chapter have no position; scenes with no start time sort last.
 */
export function getSceneTimeline(pc: PlotContext, opts: TimelineOptions = {}) {
  const filter = opts.subjectId
    ? `AND (x.location_subject_id = ? OR EXISTS (SELECT 1 FROM story_scene_subject s WHERE s.scene_id = x.id AND s.subject_id = ?))`
    : "";
  const rows = pc.db
    .prepare(
      `SELECT x.*, c.title AS chapter_title, t.title AS thread_title
       FROM story_scene x
       JOIN story_thread t ON t.id = x.thread_id
       LEFT JOIN story_chapter c ON c.id = x.chapter_id AND c.status <> 'archived'
       LEFT JOIN story_act a ON a.id = c.act_id
       WHERE x.status <> 'archived' ${filter}
       ORDER BY c.id IS NULL, a.id IS NULL, a.sort_order, c.sort_order, c.id, x.chapter_sort_order, x.id`,
    )
    .all(...(opts.subjectId ? [opts.subjectId, opts.subjectId] : [])) as (SceneRow & {
    chapter_title: string | null;
    thread_title: string;
  })[];
  const subjects = loadSceneSubjects(
    pc.db,
    rows.map((r) => r.id),
  );
  let position = 0;
  const scenes = rows.map((r) => {
    const placed = r.chapter_title !== null;
    return {
      id: r.id,
      title: r.title,
      status: r.status,
      threadId: r.thread_id,
      threadTitle: r.thread_title,
      chapterId: placed ? r.chapter_id : null,
      chapterTitle: r.chapter_title,
      position: placed ? ++position : null,
      startInstant: r.start_instant,
      endInstant: r.end_instant,
      startTime: r.start_instant === null ? null : (pc.world?.formatTime(r.start_instant) ?? null),
      endTime: r.end_instant === null ? null : (pc.world?.formatTime(r.end_instant) ?? null),
      subjectIds: subjects.get(r.id) ?? [],
      locationSubjectId: r.location_subject_id,
    };
  });
  scenes.sort(
    (a, b) =>
      (a.startInstant ?? Number.POSITIVE_INFINITY) - (b.startInstant ?? Number.POSITIVE_INFINITY) ||
      (a.position ?? Number.POSITIVE_INFINITY) - (b.position ?? Number.POSITIVE_INFINITY) ||
      a.id - b.id,
  );
  return { scenes };
}
export type SceneTimeline = ReturnType<typeof getSceneTimeline>;
