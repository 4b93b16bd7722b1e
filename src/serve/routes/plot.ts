import { z } from "zod";
import { NbError } from "../../core/errors.js";
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
import { dispatch } from "../../tools/dispatch.js";
import { getStoryDecisionTool, getStoryPromiseTool, getStoryTreeTool } from "../../tools/plot/read.js";
import { plotWriteTools } from "../../tools/plot/write.js";
import { ToolRegistry } from "../../tools/registry.js";
import type { ApiRoutes } from "../api.js";
import type { ServeHub } from "../hub.js";
import {
  ChapterDetailSchema,
  DecisionPageSchema,
  PlotSavedSchema,
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

const SAVE_TOOLS = plotWriteTools.map((t) => t.key) as [string, ...string[]];

/** One plot write as the workbench user makes it: the tool's key and its own input, unchecked here. */
const SaveBody = z
  .object({
    tool: z.enum(SAVE_TOOLS).describe("the plot write tool to run"),
    input: z.record(z.string(), z.unknown()).describe("that tool's input (validated by the tool)"),
  })
  .strict();

/** The tool's field pointers, rebased under `/input` of the request body. */
function underInput(fields: { pointer: string; message: string }[] | undefined) {
  return fields?.map((f) => ({ ...f, pointer: `/input${f.pointer}` }));
}

function plotOf(hub: ServeHub, name: string): Promise<PlotContext> {
  return openPlotContext(hub.workspace.project(name), "user");
}

/**
 * The plot: reads with the plot read tools' own input schemas (tree, chapter, brief, promises,
 * decisions), and writes through the plot write tools themselves.
 */
export function registerPlotRoutes(routes: ApiRoutes, hub: ServeHub): void {
  const base = "/api/projects/:project/plot";
  const registry = new ToolRegistry(plotWriteTools);

  routes.add(
    {
      method: "post",
      path: `${base}/save`,
      tag: "plot",
      response: PlotSavedSchema,
      summary:
        "Run one plot write tool (save_story_act, _chapter, _scene, _thread, _promise, _decision, save_promise_beat) as the user: the tool's validation, and a change in the project's history",
      params: ProjectParams,
      body: SaveBody,
    },
    async (c, { params, body }) => {
      // Dispatched like an agent's call, so the rules and the history record are the same.
      const result = await dispatch(
        { key: body.tool, input: body.input },
        {
          registry,
          workspace: hub.workspace,
          project: hub.workspace.project(params.project),
          mode: "normal",
          profileKey: null,
          allow: "all",
          approved: true,
        },
      );
      if (!result.ok) {
        const fields = underInput(result.error.fields);
        throw new NbError(result.error.code, result.error.message, fields ? { fields } : {});
      }
      // Other tabs (the plot room, the Changes inbox) learn of the user's write as of an agent's.
      hub.events.publish("plot_changed", { project: params.project, sessionId: null, tool: body.tool });
      return c.json({ tool: body.tool, result: result.details ?? null });
    },
  );

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
