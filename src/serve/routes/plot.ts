import { z } from "zod";
import {
  getChapterDetail,
  getChapterWriterBrief,
  getStoryTree,
  listDecisions,
  listPromises,
  openPlotContext,
  type PlotContext,
} from "../../plot/index.js";
import { Id } from "../../plot/schemas.js";
import { getStoryDecisionTool, getStoryPromiseTool, getStoryTreeTool } from "../../tools/plot/read.js";
import type { ApiRoutes } from "../api.js";
import type { ServeHub } from "../hub.js";
import {
  ChapterDetailSchema,
  DecisionPageSchema,
  PromisePageSchema,
  StoryTreeSchema,
  WriterBriefSchema,
} from "../responses.js";
import { ProjectParams, projectName } from "./common.js";

const ChapterParams = z
  .object({
    project: projectName,
    chapterId: z
      .string()
      .regex(/^[1-9]\d{0,15}$/, "not a chapter id")
      .transform(Number)
      .pipe(Id),
  })
  .strict();

function plotOf(hub: ServeHub, name: string): Promise<PlotContext> {
  return openPlotContext(hub.workspace.project(name), "user");
}

/** The plot, read-only, with the plot read tools' own input schemas: tree, chapter, brief, promises, decisions. */
export function registerPlotRoutes(routes: ApiRoutes, hub: ServeHub): void {
  const base = "/api/projects/:project/plot";

  routes.add(
    {
      method: "get",
      path: `${base}/tree`,
      tag: "plot",
      response: StoryTreeSchema,
      summary: "Acts → chapters and phases → threads, with scene counts (detail: summaries, briefs, scenes)",
      params: ProjectParams,
      query: getStoryTreeTool.input,
    },
    async (c, { params, query }) => c.json(getStoryTree(await plotOf(hub, params.project), query)),
  );

  routes.add(
    {
      method: "get",
      path: `${base}/chapters/:chapterId`,
      tag: "plot",
      response: ChapterDetailSchema,
      summary: "One chapter: its brief fields and live scenes in order",
      params: ChapterParams,
    },
    async (c, { params }) => c.json(getChapterDetail(await plotOf(hub, params.project), params.chapterId)),
  );

  routes.add(
    {
      method: "get",
      path: `${base}/chapters/:chapterId/brief`,
      tag: "plot",
      response: WriterBriefSchema,
      summary: "The chapter's writer brief (Markdown and its parts, with a readiness status)",
      params: ChapterParams,
    },
    async (c, { params }) =>
      c.json(getChapterWriterBrief(await plotOf(hub, params.project), params.chapterId)),
  );

  routes.add(
    {
      method: "get",
      path: `${base}/promises`,
      tag: "plot",
      response: PromisePageSchema,
      summary: "A page of reader promises, open first by importance",
      params: ProjectParams,
      query: getStoryPromiseTool.input.omit({ promiseId: true }),
    },
    async (c, { params, query }) => c.json(listPromises(await plotOf(hub, params.project), query)),
  );

  routes.add(
    {
      method: "get",
      path: `${base}/decisions`,
      tag: "plot",
      response: DecisionPageSchema,
      summary: "A page of decision records, open first",
      params: ProjectParams,
      query: getStoryDecisionTool.input.omit({ decisionId: true }),
    },
    async (c, { params, query }) => c.json(listDecisions(await plotOf(hub, params.project), query)),
  );
}
