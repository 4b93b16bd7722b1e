import { z } from "zod";
import {
  getChapterDetail,
  getChapterWriterBrief,
  getDecisionDto,
  getPromiseDetail,
  getSceneContext,
  getSceneWorldContext,
  getStoryTree,
  getThreadDetail,
  listChapters,
  listDecisions,
  listPromises,
  listScenes,
  listThreads,
} from "../../plot/index.js";
import {
  CARRIER_STATUS,
  DECISION_STATUS,
  Id,
  IMPORTANCE,
  Paging,
  PROMISE_STATUS,
  SCENE_STATUS,
  THREAD_STATUS,
} from "../../plot/schemas.js";
import { defineTool } from "../define.js";
import { assertNoFilters, jsonResult, pageResult, plotFor } from "./common.js";

const includeArchived = z.boolean().optional().describe("list mode: include archived rows");
const tag = z.string().trim().min(1).max(120).optional();

export const getStoryTreeTool = defineTool({
  key: "get_story_tree",
  group: "plot",
  description:
    "The story's structure: acts → chapters and phases → threads, with statuses and live scene counts, plus open promise/decision counts. Compact by default; detail: true adds summaries, chapter briefs and each thread's scenes.",
  input: z
    .object({
      detail: z.boolean().optional().describe("add summaries, chapter briefs and scenes"),
      includeArchived,
    })
    .strict(),
  effect: "read",
  execute: (input, ctx) => jsonResult(getStoryTree(plotFor(ctx), input)),
});

export const getStoryThreadTool = defineTool({
  key: "get_story_thread",
  group: "plot",
  description:
    "One thread with its scenes in causal order. Omit threadId to list threads (filters: status, phaseId, tag, isMain; paging: limit, cursor).",
  input: z
    .object({
      threadId: Id.optional(),
      status: z.enum(THREAD_STATUS).optional(),
      phaseId: Id.optional(),
      tag,
      isMain: z.boolean().optional(),
      includeArchived,
      ...Paging,
    })
    .strict(),
  effect: "read",
  execute: (input, ctx) => {
    const pc = plotFor(ctx);
    if (input.threadId === undefined) return pageResult("Threads", listThreads(pc, input));
    assertNoFilters(input, "threadId");
    return jsonResult(getThreadDetail(pc, input.threadId));
  },
});

export const getStorySceneContextTool = defineTool({
  key: "get_story_scene_context",
  group: "plot",
  description:
    "One scene in context: its fields, refs and world anchor, its thread, neighbouring scenes in the thread, its chapter and its promise beats. Omit sceneId to list scenes in reading order (filters: status, threadId, chapterId; paging).",
  input: z
    .object({
      sceneId: Id.optional(),
      status: z.enum(SCENE_STATUS).optional(),
      threadId: Id.optional(),
      chapterId: Id.optional(),
      includeArchived,
      ...Paging,
    })
    .strict(),
  effect: "read",
  execute: (input, ctx) => {
    const pc = plotFor(ctx);
    if (input.sceneId === undefined) return pageResult("Scenes", listScenes(pc, input));
    assertNoFilters(input, "sceneId");
    return jsonResult(getSceneContext(pc, input.sceneId));
  },
});

export const getSceneWorldContextTool = defineTool({
  key: "get_scene_world_context",
  group: "plot",
  description:
    "The World Engine around one scene: slices in its time range touching its subjects (with patch counts), each subject's state at the scene's end, and subject ids the world does not know. Fails when the scene has no time range. Omit sceneId to list scenes with their anchors (filters: threadId, chapterId, anchored; paging).",
  input: z
    .object({
      sceneId: Id.optional(),
      threadId: Id.optional(),
      chapterId: Id.optional(),
      anchored: z
        .boolean()
        .optional()
        .describe("list mode: only scenes with (true) or without (false) a time range"),
      ...Paging,
    })
    .strict(),
  effect: "read",
  execute: (input, ctx) => {
    const pc = plotFor(ctx);
    if (input.sceneId === undefined)
      return pageResult("Scenes and their world anchors", listScenes(pc, input));
    assertNoFilters(input, "sceneId");
    return jsonResult(getSceneWorldContext(pc, input.sceneId));
  },
});

export const getStoryChapterTool = defineTool({
  key: "get_story_chapter",
  group: "plot",
  description:
    "One chapter with its eleven brief fields and its live scenes in order. Omit chapterId to list chapters in story order (filters: actId, status; paging).",
  input: z
    .object({
      chapterId: Id.optional(),
      actId: Id.optional(),
      status: z.enum(CARRIER_STATUS).optional(),
      includeArchived,
      ...Paging,
    })
    .strict(),
  effect: "read",
  execute: (input, ctx) => {
    const pc = plotFor(ctx);
    if (input.chapterId === undefined) return pageResult("Chapters", listChapters(pc, input));
    assertNoFilters(input, "chapterId");
    return jsonResult(getChapterDetail(pc, input.chapterId));
  },
});

export const getChapterWriterBriefTool = defineTool({
  key: "get_chapter_writer_brief",
  group: "plot",
  description:
    "The hand-off for writing one chapter, as Markdown: brief fields, information control, live scenes in order with threads, purposes and world state, promise tasks, open decisions that touch the chapter, suggested reading, and a status (needs_plot, needs_world_anchor, needs_world_context, needs_chapter_brief, ready). Omit chapterId to list chapters with their readiness (filters: actId; paging).",
  input: z
    .object({
      chapterId: Id.optional(),
      actId: Id.optional(),
      ...Paging,
    })
    .strict(),
  effect: "read",
  execute: (input, ctx) => {
    const pc = plotFor(ctx);
    if (input.chapterId === undefined)
      return pageResult("Chapters and brief readiness", listChapters(pc, input));
    assertNoFilters(input, "chapterId");
    const brief = getChapterWriterBrief(pc, input.chapterId);
    return { text: brief.markdown, details: brief };
  },
});

export const getStoryPromiseTool = defineTool({
  key: "get_story_promise",
  group: "plot",
  description:
    "One reader promise with its beats in story order, beat stats and derived stage. Omit promiseId to list promises, open first by importance (filters: status, importance, tag; paging).",
  input: z
    .object({
      promiseId: Id.optional(),
      status: z.enum(PROMISE_STATUS).optional(),
      importance: z.enum(IMPORTANCE).optional(),
      tag,
      ...Paging,
    })
    .strict(),
  effect: "read",
  execute: (input, ctx) => {
    const pc = plotFor(ctx);
    if (input.promiseId === undefined) return pageResult("Promises", listPromises(pc, input));
    assertNoFilters(input, "promiseId");
    return jsonResult(getPromiseDetail(pc, input.promiseId));
  },
});

export const getStoryDecisionTool = defineTool({
  key: "get_story_decision",
  group: "plot",
  description:
    "One decision record: question, options, conclusion, reason, risk, rejected alternatives, serves/dependsOn, anchor. Omit decisionId to list decisions, open first (filters: status, chapterId (anchored on or due at it), threadId; paging).",
  input: z
    .object({
      decisionId: Id.optional(),
      status: z.enum(DECISION_STATUS).optional(),
      chapterId: Id.optional(),
      threadId: Id.optional(),
      ...Paging,
    })
    .strict(),
  effect: "read",
  execute: (input, ctx) => {
    const pc = plotFor(ctx);
    if (input.decisionId === undefined) return pageResult("Decisions", listDecisions(pc, input));
    assertNoFilters(input, "decisionId");
    return jsonResult(getDecisionDto(pc, input.decisionId));
  },
});

/** The eight plot read tools. */
export const plotReadTools = [
  getStoryTreeTool,
  getStoryThreadTool,
  getStorySceneContextTool,
  getSceneWorldContextTool,
  getStoryChapterTool,
  getChapterWriterBriefTool,
  getStoryPromiseTool,
  getStoryDecisionTool,
];
