import { renderBriefMarkdown } from "./brief-markdown.js";
import { type ChapterBrief, type ChapterDto, type ChapterRow, chapterDto } from "./carrier.js";
import type { PlotContext } from "./context.js";
import { loadSceneRefs, loadSceneSubjects, type SceneRow, type WorldAnchor, worldAnchor } from "./scenes.js";
import { type BeatKind, INFO_CONTROL_KEYS } from "./schemas.js";
import { mustGet, parseObjectArray } from "./store.js";
import { sceneQuerySubjects } from "./views.js";
import type { SceneSlice, SceneWorldContext } from "./world-link.js";

/** Brief status, first match wins: no scenes → missing anchor → missing world context → no information control → ready. */
export type BriefStatus =
  | "needs_plot"
  | "needs_world_anchor"
  | "needs_world_context"
  | "needs_chapter_brief"
  | "ready";

/** A subject as the brief shows it: identity plus a short state summary at the scene's end. */
export interface BriefSubject {
  subjectId: string;
  type: string;
  name: string;
  state: string;
}

export interface BriefScene {
  id: number;
  title: string;
  status: string;
  summary: string;
  purpose: string | null;
  writingTip: string | null;
  outcomeType: string | null;
  pacingRole: string | null;
  thread: { id: number; title: string; isMain: boolean; summary: string; writingTip: string | null };
  worldAnchor: WorldAnchor;
  world: { slices: SceneSlice[]; subjects: BriefSubject[]; unresolvedSubjectIds: string[] } | null;
  warnings: string[];
}

export interface BriefTask {
  sceneId: number;
  sceneTitle: string;
  promiseId: number;
  promiseName: string;
  promiseTitle: string;
  kind: BeatKind;
  note: string | null;
  payoffExpectation: string | null;
}

export interface BriefDecision {
  decisionId: number;
  name: string;
  title: string;
  question: string;
  options: { option: string; note: string | null }[];
  reason: {
    kind: "chapter" | "scene" | "thread" | "promise" | "deadline";
    target: string | null;
    chaptersLeft: number | null;
  };
}

export interface ChapterWriterBrief {
  chapter: ChapterDto;
  status: BriefStatus;
  scenes: BriefScene[];
  promiseTasks: BriefTask[];
  openDecisions: BriefDecision[];
  suggestedReading: { path: string; relation: string; note: string | null }[];
  warnings: string[];
  language: "en" | "zh";
  markdown: string;
}

/** How many chapters ahead an open decision's deadline makes it a warning. */
export const DECISION_HORIZON = 3;
const STATE_SUMMARY_MAX = 240;

/** A one-line summary of a subject's non-empty attributes (`key: value; …`), cut at a fixed length. */
export function summarizeState(attrs: Record<string, unknown>): string {
  const empty = (v: unknown) =>
    v === null || v === "" || (typeof v === "object" && Object.keys(v as object).length === 0);
  const parts = Object.entries(attrs)
    .filter(([, v]) => !empty(v))
    .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`);
  const text = parts.join("; ");
  return text.length > STATE_SUMMARY_MAX ? `${text.slice(0, STATE_SUMMARY_MAX - 1)}…` : text;
}

type SceneJoin = SceneRow & {
  t_title: string;
  t_is_main: number;
  t_summary: string;
  t_writing_tip: string | null;
};

/**
 * Compile everything the writer needs for one chapter. Archived scenes count nowhere; the world is
 * asked once for all anchored scenes; beats and decisions come from one query each.
 */
export function getChapterWriterBrief(pc: PlotContext, chapterId: number): ChapterWriterBrief {
  const { db } = pc;
  return db.transaction(() => {
    const chapterRow = mustGet<ChapterRow>(db, "chapter", chapterId, "/chapterId");
    const chapter = chapterDto(chapterRow);
    const rows = db
      .prepare(
        `SELECT s.*, t.title AS t_title, t.is_main AS t_is_main, t.summary AS t_summary, t.writing_tip AS t_writing_tip
         FROM story_scene s JOIN story_thread t ON t.id = s.thread_id
         WHERE s.chapter_id = ? AND s.status <> 'archived' ORDER BY s.chapter_sort_order, s.id`,
      )
      .all(chapterId) as SceneJoin[];
    const ids = rows.map((r) => r.id);
    const subjects = loadSceneSubjects(db, ids);
    const refs = loadSceneRefs(db, ids);
    const warnings: string[] = [];
    const zh = pc.language === "zh";

    const anchored = rows.filter((r) => r.start_instant !== null && r.end_instant !== null);
    let contexts = new Map<number, SceneWorldContext>();
    if (anchored.length && pc.world) {
      contexts = pc.world.sceneContexts(
        anchored.map((r) => ({
          sceneId: r.id,
          start: r.start_instant!,
          end: r.end_instant!,
          subjectIds: sceneQuerySubjects(subjects.get(r.id)!, r.location_subject_id),
        })),
      );
    } else if (anchored.length) {
      warnings.push(
        zh
          ? "本项目没有 World Engine，无法读取世界状态"
          : "This project has no World Engine; world context is unavailable",
      );
    }

    const scenes: BriefScene[] = rows.map((r) => {
      const sceneWarnings: string[] = [];
      const ctx = contexts.get(r.id);
      if (r.start_instant === null || r.end_instant === null) {
        sceneWarnings.push(zh ? `场景「${r.title}」未设置时间范围` : `Scene "${r.title}" has no time range`);
      }
      if (ctx?.unresolvedSubjectIds.length) {
        sceneWarnings.push(
          zh
            ? `场景「${r.title}」有 World Engine 中不存在的主体：${ctx.unresolvedSubjectIds.join(", ")}`
            : `Scene "${r.title}" names subjects the World Engine does not know: ${ctx.unresolvedSubjectIds.join(", ")}`,
        );
      }
      if (ctx?.slicesTruncated) {
        sceneWarnings.push(
          zh
            ? "世界切片过多，只列出了前一部分"
            : "Too many world slices in range; only the first ones are listed",
        );
      }
      return {
        id: r.id,
        title: r.title,
        status: r.status,
        summary: r.summary,
        purpose: r.purpose,
        writingTip: r.writing_tip,
        outcomeType: r.outcome_type,
        pacingRole: r.pacing_role,
        thread: {
          id: r.thread_id,
          title: r.t_title,
          isMain: r.t_is_main === 1,
          summary: r.t_summary,
          writingTip: r.t_writing_tip,
        },
        worldAnchor: worldAnchor(r, subjects.get(r.id)!, pc.world),
        world: ctx
          ? {
              slices: ctx.slices,
              subjects: ctx.subjectStates.map((s) => ({
                subjectId: s.subjectId,
                type: s.type,
                name: s.name,
                state: summarizeState(s.attrs),
              })),
              unresolvedSubjectIds: ctx.unresolvedSubjectIds,
            }
          : null,
        warnings: sceneWarnings,
      };
    });
    for (const s of scenes) for (const w of s.warnings) if (!warnings.includes(w)) warnings.push(w);

    const promiseTasks = loadTasks(pc, chapterId);
    const openDecisions = loadTouchingDecisions(pc, chapterRow);

    const suggestedReading: ChapterWriterBrief["suggestedReading"] = [];
    const seenPaths = new Set<string>();
    for (const id of ids) {
      for (const ref of refs.get(id)!) {
        if (ref.targetKind !== "content" || seenPaths.has(ref.target)) continue;
        seenPaths.add(ref.target);
        suggestedReading.push({ path: ref.target, relation: ref.relation, note: ref.note });
      }
    }

    const status = briefStatus(scenes, chapter.brief, pc.world !== null);
    if (status === "needs_plot")
      warnings.unshift(zh ? "本章还没有挂接任何场景" : "No scenes are attached to this chapter");
    if (status === "needs_chapter_brief") {
      warnings.push(
        zh
          ? "信息控制字段（读者已知 / 主角已知 / 必须隐藏 / 可暗示）全部为空"
          : "The information-control fields (reader knows / protagonist knows / must hide / hint only) are all empty",
      );
    }
    const brief: Omit<ChapterWriterBrief, "markdown"> = {
      chapter,
      status,
      scenes,
      promiseTasks,
      openDecisions,
      suggestedReading,
      warnings,
      language: pc.language,
    };
    return { ...brief, markdown: renderBriefMarkdown(brief) };
  })();
}

function briefStatus(scenes: BriefScene[], brief: ChapterBrief, hasWorld: boolean): BriefStatus {
  if (scenes.length === 0) return "needs_plot";
  if (scenes.some((s) => s.worldAnchor.startInstant === null || s.worldAnchor.endInstant === null))
    return "needs_world_anchor";
  if (!hasWorld || scenes.some((s) => s.world === null || s.world.unresolvedSubjectIds.length > 0))
    return "needs_world_context";
  if (INFO_CONTROL_KEYS.every((k) => !brief[k])) return "needs_chapter_brief";
  return "ready";
}

const KIND_ORDER = "CASE b.kind WHEN 'plant' THEN 0 WHEN 'advance' THEN 1 WHEN 'setback' THEN 2 ELSE 3 END";

function loadTasks(pc: PlotContext, chapterId: number): BriefTask[] {
  const rows = pc.db
    .prepare(
      `SELECT s.id AS sceneId, s.title AS sceneTitle, p.id AS promiseId, p.name AS promiseName, p.title AS promiseTitle,
              b.kind, b.note, p.payoff_expectation AS payoffExpectation
       FROM story_promise_beat b JOIN story_scene s ON s.id = b.scene_id JOIN story_promise p ON p.id = b.promise_id
       WHERE s.chapter_id = ? AND s.status <> 'archived' AND p.status <> 'abandoned'
       ORDER BY s.chapter_sort_order, s.id, ${KIND_ORDER}, p.id`,
    )
    .all(chapterId) as BriefTask[];
  return rows.map((t) => ({ ...t, payoffExpectation: t.kind === "payoff" ? t.payoffExpectation : null }));
}

function loadTouchingDecisions(pc: PlotContext, chapter: ChapterRow): BriefDecision[] {
  const rows = pc.db
    .prepare(
      `WITH sc AS (SELECT id, thread_id FROM story_scene WHERE chapter_id = :chapter AND status <> 'archived'),
       touched AS (
         SELECT d.id, d.name, d.title, d.question, d.options,
           CASE
             WHEN d.anchor_kind = 'chapter' AND d.anchor_chapter_id = :chapter THEN 'chapter'
             WHEN d.anchor_kind = 'scene' AND d.anchor_scene_id IN (SELECT id FROM sc) THEN 'scene'
             WHEN d.anchor_kind = 'thread' AND d.anchor_thread_id IN (SELECT thread_id FROM sc) THEN 'thread'
             WHEN d.anchor_kind = 'promise' AND d.anchor_promise_id IN
               (SELECT promise_id FROM story_promise_beat WHERE scene_id IN (SELECT id FROM sc)) THEN 'promise'
             WHEN dc.sort_order IS NOT NULL AND dc.sort_order - :pos <= ${DECISION_HORIZON} THEN 'deadline'
           END AS kind,
           CASE d.anchor_kind WHEN 'scene' THEN (SELECT title FROM story_scene WHERE id = d.anchor_scene_id)
             WHEN 'thread' THEN (SELECT title FROM story_thread WHERE id = d.anchor_thread_id)
             WHEN 'promise' THEN (SELECT title FROM story_promise WHERE id = d.anchor_promise_id) END AS anchor_title,
           dc.sort_order - :pos AS chapters_left
         FROM story_decision d LEFT JOIN story_chapter dc ON dc.id = d.deadline_chapter_id
         WHERE d.status = 'open')
       SELECT * FROM touched WHERE kind IS NOT NULL ORDER BY id`,
    )
    .all({ chapter: chapter.id, pos: chapter.sort_order }) as {
    id: number;
    name: string;
    title: string;
    question: string;
    options: string;
    kind: BriefDecision["reason"]["kind"];
    anchor_title: string | null;
    chapters_left: number | null;
  }[];
  return rows.map((r) => {
    return {
      decisionId: r.id,
      name: r.name,
      title: r.title,
      question: r.question,
      options: parseObjectArray<BriefDecision["options"][number]>(r.options),
      reason: {
        kind: r.kind,
        target: r.kind === "chapter" || r.kind === "deadline" ? null : r.anchor_title,
        chaptersLeft: r.chapters_left,
      },
    };
  });
}
