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
  type PlotContext,
} from "../../plot/index.js";
import type { Page } from "../../plot/paging.js";
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
import type { ToolResult } from "../types.js";
import { assertNoFilters, jsonResult, pageResult, plotFor } from "./common.js";

const includeArchived = z.boolean().optional().describe("list mode: include archived rows");
const tag = z.string().trim().min(1).max(120).optional();

/** What a get-or-list read tool needs besides its key, description and input. */
interface LookupSpec<S extends z.ZodObject> {
  key: string;
  description: string;
  input: S;
  /** The input field naming one item; omitted, the tool lists. */
  idKey: keyof z.infer<S> & string;
  /** Header of the list text. */
  listTitle: string;
  list: (pc: PlotContext, query: z.infer<S>) => Page<unknown>;
  get: (pc: PlotContext, id: number) => ToolResult;
}

/** A read tool that returns one item by id, or a filtered page of items when the id is omitted. */
function lookupTool<S extends z.ZodObject>(spec: LookupSpec<S>) {
  return defineTool({
    key: spec.key,
    group: "plot",
    description: spec.description,
    input: spec.input,
    effect: "read",
    execute: async (input, ctx) => {
      const pc = await plotFor(ctx);
      const id = (input as Record<string, unknown>)[spec.idKey] as number | undefined;
      if (id === undefined) return pageResult(spec.listTitle, spec.list(pc, input));
      assertNoFilters(input, spec.idKey);
      return spec.get(pc, id);
    },
  });
}

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
  execute: async (input, ctx) => jsonResult(getStoryTree(await plotFor(ctx), input)),
});

export const getStoryThreadTool = lookupTool({
  key: "get_story_thread",
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
  idKey: "threadId",
  listTitle: "Threads",
  list: listThreads,
  get: (pc, id) => jsonResult(getThreadDetail(pc, id)),
});

export const getStorySceneContextTool = lookupTool({
  key: "get_story_scene_context",
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
  idKey: "sceneId",
  listTitle: "Scenes",
  list: listScenes,
  get: (pc, id) => jsonResult(getSceneContext(pc, id)),
});

export const getSceneWorldContextTool = lookupTool({
  key: "get_scene_world_context",
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
  idKey: "sceneId",
  listTitle: "Scenes and their world anchors",
  list: listScenes,
  get: (pc, id) => jsonResult(getSceneWorldContext(pc, id)),
});

export const getStoryChapterTool = lookupTool({
  key: "get_story_chapter",
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
  idKey: "chapterId",
  listTitle: "Chapters",
  list: listChapters,
  get: (pc, id) => jsonResult(getChapterDetail(pc, id)),
});

export const getChapterWriterBriefTool = lookupTool({
  key: "get_chapter_writer_brief",
  description:
    "The hand-off for writing one chapter, as Markdown: brief fields, information control, live scenes in order with threads, purposes and world state, promise tasks, open decisions that touch the chapter, suggested reading, and a status (needs_plot, needs_world_anchor, needs_world_context, needs_chapter_brief, ready). Omit chapterId to list chapters with their readiness (filters: actId; paging).",
  input: z
    .object({
      chapterId: Id.optional(),
      actId: Id.optional(),
      ...Paging,
    })
    .strict(),
  idKey: "chapterId",
  listTitle: "Chapters and brief readiness",
  list: listChapters,
  get: (pc, id) => {
    const brief = getChapterWriterBrief(pc, id);
    return { text: brief.markdown, details: brief };
  },
});

export const getStoryPromiseTool = lookupTool({
  key: "get_story_promise",
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
  idKey: "promiseId",
  listTitle: "Promises",
  list: listPromises,
  get: (pc, id) => jsonResult(getPromiseDetail(pc, id)),
});

export const getStoryDecisionTool = lookupTool({
  key: "get_story_decision",
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
  idKey: "decisionId",
  listTitle: "Decisions",
  list: listDecisions,
  get: (pc, id) => jsonResult(getDecisionDto(pc, id)),
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
