import type { PlotContext } from "./context.js";
import type { PlotDb } from "./db.js";
import { type DecisionRow, decisionAnchor } from "./decisions.js";
import { makePage, type Page, pageWindow } from "./paging.js";
import { derivedStage, loadBeatStats, type PromiseRow } from "./promises.js";

/** Filters and paging shared by the list modes (each list uses the ones that apply to it). */
export interface ListQuery {
  status?: string;
  actId?: number;
  chapterId?: number;
  threadId?: number;
  phaseId?: number;
  importance?: string;
  tag?: string;
  includeArchived?: boolean;
  anchored?: boolean;
  limit?: number;
  cursor?: string;
}

type Where = { sql: string[]; params: unknown[] };

function where(): Where {
  return { sql: [], params: [] };
}
function add(w: Where, cond: string, ...params: unknown[]): void {
  w.sql.push(cond);
  w.params.push(...params);
}
function clause(w: Where): string {
  return w.sql.length ? `WHERE ${w.sql.join(" AND ")}` : "";
}

function runPage<T>(
  db: PlotDb,
  from: string,
  w: Where,
  select: string,
  order: string,
  q: ListQuery,
): Page<T> {
  const win = pageWindow(q);
  const total = (
    db.prepare(`SELECT count(*) AS n FROM ${from} ${clause(w)}`).get(...w.params) as { n: number }
  ).n;
  const rows = db
    .prepare(`SELECT ${select} FROM ${from} ${clause(w)} ORDER BY ${order} LIMIT ? OFFSET ?`)
    .all(...w.params, win.limit, win.offset) as T[];
  return makePage(rows, total, win);
}

const LIVE_SCENES = "(SELECT count(*) FROM story_scene x WHERE x.%s = %s.id AND x.status <> 'archived')";
const liveScenes = (col: string, alias: string) => LIVE_SCENES.replace("%s", col).replace("%s", alias);

/** Threads, filtered by status, phase, tag or main-ness; archived ones only when asked or filtered for. */
export function listThreads(pc: PlotContext, q: ListQuery & { isMain?: boolean }) {
  const w = where();
  if (q.status) add(w, "t.status = ?", q.status);
  else if (!q.includeArchived) add(w, "t.status <> 'archived'");
  if (q.phaseId !== undefined) add(w, "t.phase_id = ?", q.phaseId);
  if (q.tag) add(w, "EXISTS (SELECT 1 FROM json_each(t.tags) WHERE value = ?)", q.tag);
  if (q.isMain !== undefined) add(w, "t.is_main = ?", q.isMain ? 1 : 0);
  const page = runPage<Record<string, unknown>>(
    pc.db,
    "story_thread t LEFT JOIN story_phase p ON p.id = t.phase_id",
    w,
    `t.id, t.name, t.title, t.status, t.is_main AS isMain, t.phase_id AS phaseId, ${liveScenes("thread_id", "t")} AS scenes`,
    "p.sort_order IS NULL, p.sort_order, t.sort_order, t.id",
    q,
  );
  for (const r of page.rows) r.isMain = r.isMain === 1;
  return page;
}

/** Scenes in reading order (chapter order, then position in the chapter; unplaced scenes last, in thread order). */
export function listScenes(pc: PlotContext, q: ListQuery) {
  const w = where();
  if (q.status) add(w, "s.status = ?", q.status);
  else if (!q.includeArchived) add(w, "s.status <> 'archived'");
  if (q.threadId !== undefined) add(w, "s.thread_id = ?", q.threadId);
  if (q.chapterId !== undefined) add(w, "s.chapter_id = ?", q.chapterId);
  if (q.anchored === true) add(w, "s.start_instant IS NOT NULL AND s.end_instant IS NOT NULL");
  if (q.anchored === false) add(w, "(s.start_instant IS NULL OR s.end_instant IS NULL)");
  const page = runPage<{
    id: number;
    title: string;
    status: string;
    threadId: number;
    chapterId: number | null;
    startInstant: number | null;
    endInstant: number | null;
    subjects: number;
  }>(
    pc.db,
    "story_scene s LEFT JOIN story_chapter c ON c.id = s.chapter_id",
    w,
    `s.id, s.title, s.status, s.thread_id AS threadId, s.chapter_id AS chapterId, s.start_instant AS startInstant,
     s.end_instant AS endInstant, (SELECT count(*) FROM story_scene_subject ss WHERE ss.scene_id = s.id) AS subjects`,
    "c.sort_order IS NULL, c.sort_order, s.chapter_sort_order, s.thread_id, s.thread_sort_order, s.id",
    q,
  );
  return {
    ...page,
    rows: page.rows.map((r) => ({
      ...r,
      startTime: r.startInstant === null ? null : (pc.world?.formatTime(r.startInstant) ?? null),
      endTime: r.endInstant === null ? null : (pc.world?.formatTime(r.endInstant) ?? null),
    })),
  };
}

/** Chapters in story order, with live scene counts and brief readiness. */
export function listChapters(pc: PlotContext, q: ListQuery) {
  const w = where();
  if (q.status) add(w, "c.status = ?", q.status);
  else if (!q.includeArchived) add(w, "c.status <> 'archived'");
  if (q.actId !== undefined) add(w, "c.act_id = ?", q.actId);
  const page = runPage<Record<string, unknown>>(
    pc.db,
    "story_chapter c",
    w,
    `c.id, c.name, c.title, c.status, c.act_id AS actId, c.sort_order AS sortOrder, ${liveScenes("chapter_id", "c")} AS scenes,
     (SELECT count(*) FROM story_scene x WHERE x.chapter_id = c.id AND x.status <> 'archived'
        AND (x.start_instant IS NULL OR x.end_instant IS NULL)) AS unanchoredScenes,
     (coalesce(c.brief_reader_knows, c.brief_protagonist_knows, c.brief_must_hide, c.brief_hint_only) IS NOT NULL) AS infoControlSet`,
    "c.sort_order, c.id",
    q,
  );
  for (const r of page.rows) r.infoControlSet = r.infoControlSet === 1;
  return page;
}

const PROMISE_ORDER =
  "CASE status WHEN 'open' THEN 0 WHEN 'fulfilled' THEN 1 ELSE 2 END, CASE importance WHEN 'high' THEN 0 WHEN 'medium' THEN 1 ELSE 2 END, id";

/** Promises: open first, then by importance; stats aggregated in SQL for the page only. */
export function listPromises(pc: PlotContext, q: ListQuery) {
  const w = where();
  if (q.status) add(w, "status = ?", q.status);
  if (q.importance) add(w, "importance = ?", q.importance);
  if (q.tag) add(w, "EXISTS (SELECT 1 FROM json_each(tags) WHERE value = ?)", q.tag);
  const page = runPage<PromiseRow>(pc.db, "story_promise", w, "*", PROMISE_ORDER, q);
  const stats = loadBeatStats(
    pc.db,
    page.rows.map((r) => r.id),
  );
  return {
    ...page,
    rows: page.rows.map((r) => {
      const s = stats.get(r.id)!;
      return {
        id: r.id,
        name: r.name,
        title: r.title,
        status: r.status,
        importance: r.importance,
        stage: derivedStage(s),
        beats: { plant: s.plant, advance: s.advance, setback: s.setback, payoff: s.payoff },
        deadlineChapterId: r.deadline_chapter_id,
      };
    }),
  };
}

/** Decisions: open first, then by id; `chapterId` keeps those anchored on or due at that chapter. */
export function listDecisions(pc: PlotContext, q: ListQuery) {
  const w = where();
  if (q.status) add(w, "status = ?", q.status);
  if (q.chapterId !== undefined)
    add(w, "(anchor_chapter_id = ? OR deadline_chapter_id = ?)", q.chapterId, q.chapterId);
  if (q.threadId !== undefined) add(w, "anchor_thread_id = ?", q.threadId);
  const page = runPage<DecisionRow>(
    pc.db,
    "story_decision",
    w,
    "*",
    "CASE status WHEN 'open' THEN 0 WHEN 'decided' THEN 1 WHEN 'superseded' THEN 2 ELSE 3 END, id",
    q,
  );
  return {
    ...page,
    rows: page.rows.map((r) => ({
      id: r.id,
      name: r.name,
      title: r.title,
      status: r.status,
      question: r.question,
      anchor: decisionAnchor(r),
      deadlineChapterId: r.deadline_chapter_id,
    })),
  };
}
