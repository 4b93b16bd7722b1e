import { type ChapterRow, chapterBrief } from "./carrier.js";
import type { PlotContext } from "./context.js";

export interface TreeOptions {
  /** Add summaries, chapter briefs and each thread's scenes (compact). */
  detail?: boolean;
  includeArchived?: boolean;
}

interface Counted {
  id: number;
  name: string;
  title: string;
  status: string;
}

/**
 * The story's two trees: acts → chapters and phases → threads. Compact by default (titles,
 * statuses, live scene counts); `detail` adds summaries, briefs and scenes. Archived acts,
 * chapters, phases, threads and scenes are left out unless asked for; so are the chapters of an
 * archived act and the threads of an archived phase.
 */
export function getStoryTree(pc: PlotContext, opts: TreeOptions = {}) {
  const { db } = pc;
  const arch = (alias: string) => (opts.includeArchived ? "1" : `${alias}.status <> 'archived'`);
  const story = db.prepare("SELECT title, summary FROM story WHERE id = 1").get() as {
    title: string;
    summary: string;
  };
  const acts = db
    .prepare(
      `SELECT id, name, title, status, summary FROM story_act a WHERE ${arch("a")} ORDER BY sort_order, id`,
    )
    .all() as (Counted & { summary: string })[];
  const chapters = db
    .prepare(
      `SELECT c.*, (SELECT count(*) FROM story_scene x WHERE x.chapter_id = c.id AND ${arch("x")}) AS scene_count
       FROM story_chapter c LEFT JOIN story_act a ON a.id = c.act_id
       WHERE ${arch("c")} AND (a.id IS NULL OR ${arch("a")}) ORDER BY c.sort_order, c.id`,
    )
    .all() as (ChapterRow & { scene_count: number })[];
  const phases = db
    .prepare(
      `SELECT id, name, title, status, summary FROM story_phase p WHERE ${arch("p")} ORDER BY sort_order, id`,
    )
    .all() as (Counted & { summary: string })[];
  const threads = db
    .prepare(
      `SELECT t.id, t.name, t.title, t.status, t.is_main, t.phase_id, t.summary,
              (SELECT count(*) FROM story_scene x WHERE x.thread_id = t.id AND ${arch("x")}) AS scene_count
       FROM story_thread t LEFT JOIN story_phase p ON p.id = t.phase_id
       WHERE ${arch("t")} AND (p.id IS NULL OR ${arch("p")}) ORDER BY t.sort_order, t.id`,
    )
    .all() as (Counted & {
    is_main: number;
    phase_id: number | null;
    summary: string;
    scene_count: number;
  })[];

  const scenesByThread = new Map<
    number,
    { id: number; title: string; status: string; chapterId: number | null }[]
  >();
  if (opts.detail) {
    const rows = db
      .prepare(
        `SELECT id, thread_id, chapter_id, title, status FROM story_scene x WHERE ${arch("x")} ORDER BY thread_id, thread_sort_order, id`,
      )
      .all() as { id: number; thread_id: number; chapter_id: number | null; title: string; status: string }[];
    for (const r of rows) {
      const list = scenesByThread.get(r.thread_id) ?? [];
      list.push({ id: r.id, title: r.title, status: r.status, chapterId: r.chapter_id });
      scenesByThread.set(r.thread_id, list);
    }
  }

  const chapterNode = (c: ChapterRow & { scene_count: number }) => ({
    id: c.id,
    name: c.name,
    title: c.title,
    status: c.status,
    scenes: c.scene_count,
    ...(opts.detail ? { note: c.note, brief: chapterBrief(c) } : {}),
  });
  const threadNode = (t: (typeof threads)[number]) => ({
    id: t.id,
    name: t.name,
    title: t.title,
    status: t.status,
    isMain: t.is_main === 1,
    scenes: t.scene_count,
    ...(opts.detail ? { summary: t.summary, sceneList: scenesByThread.get(t.id) ?? [] } : {}),
  });

  const phaseIds = new Set(phases.map((p) => p.id));
  const counts = db
    .prepare(
      `SELECT (SELECT count(*) FROM story_promise WHERE status = 'open') AS openPromises,
              (SELECT count(*) FROM story_decision WHERE status = 'open') AS openDecisions,
              (SELECT count(*) FROM story_scene x WHERE ${arch("x")}) AS scenes`,
    )
    .get() as { openPromises: number; openDecisions: number; scenes: number };

  return {
    story: opts.detail ? story : { title: story.title },
    acts: acts.map((a) => ({
      id: a.id,
      name: a.name,
      title: a.title,
      status: a.status,
      ...(opts.detail ? { summary: a.summary } : {}),
      chapters: chapters.filter((c) => c.act_id === a.id).map(chapterNode),
    })),
    ungroupedChapters: chapters.filter((c) => c.act_id === null).map(chapterNode),
    phases: phases.map((p) => ({
      id: p.id,
      name: p.name,
      title: p.title,
      status: p.status,
      ...(opts.detail ? { summary: p.summary } : {}),
      threads: threads.filter((t) => t.phase_id === p.id).map(threadNode),
    })),
    ungroupedThreads: threads.filter((t) => t.phase_id === null || !phaseIds.has(t.phase_id)).map(threadNode),
    totals: {
      acts: acts.length,
      chapters: chapters.length,
      phases: phases.length,
      threads: threads.length,
      scenes: counts.scenes,
      openPromises: counts.openPromises,
      openDecisions: counts.openDecisions,
    },
  };
}
export type StoryTree = ReturnType<typeof getStoryTree>;
