import { z } from "zod";
import { openPlotContext } from "../../plot/index.js";
import { getSceneDto } from "../../plot/scenes.js";
import { Id } from "../../plot/schemas.js";
import { getSceneTimeline } from "../../plot/timeline.js";
import { sliceListSchema } from "../../world/api.js";
import { openCalendar } from "../../world/calendar/index.js";
import { openWorld } from "../../world/world.js";
import type { ApiRoutes } from "../api.js";
import type { ServeHub } from "../hub.js";
import { SceneDetailSchema, TimelineSchema } from "../responses.js";
import { ProjectParams, projectName } from "./common.js";

/** World events shown at most; past it the timeline says it was cut. */
const MAX_EVENTS = 500;

const SceneParams = z
  .object({
    project: projectName,
    sceneId: z
      .string()
      .regex(/^[1-9]\d{0,15}$/, "not a scene id")
      .transform(Number)
      .pipe(Id),
  })
  .strict();

/**
 * Plot views the workbench edits from: one scene whole (its fields and world anchor), and the
 * story on its own calendar: the plot's scenes at their story times, with their places in the
 * book, beside the World Engine's slices (events), optionally narrowed to one character or place.
 */
export function registerPlotViewRoutes(routes: ApiRoutes, hub: ServeHub): void {
  routes.add(
    {
      method: "get",
      path: "/api/projects/:project/plot/timeline",
      tag: "plot",
      response: TimelineSchema,
      summary:
        "Scenes at their story times with their places in the book, and world events (slices), for one subject or all",
      params: ProjectParams,
      query: z.object({ subject: sliceListSchema.shape.subjectIds.unwrap().element.optional() }).strict(),
    },
    async (c, { params, query }) => {
      const project = hub.workspace.project(params.project);
      const { scenes } = getSceneTimeline(await openPlotContext(project, "user"), {
        subjectId: query.subject,
      });
      const calendar = await openCalendar(project);
      const slices = openWorld(project).slice.list({
        ...(query.subject ? { subjectIds: [query.subject] } : {}),
        limit: MAX_EVENTS + 1,
      });
      const truncated = slices.length > MAX_EVENTS;
      const events = (truncated ? slices.slice(1) : slices).map((s) => ({
        id: s.id,
        instant: s.instant,
        time: calendar.format(s.instant),
        title: s.title,
        summary: s.summary,
        kind: s.kind,
      }));
      return c.json({ scenes, events, eventsTruncated: truncated });
    },
  );

  routes.add(
    {
      method: "get",
      path: "/api/projects/:project/plot/scenes/:sceneId",
      tag: "plot",
      response: SceneDetailSchema,
      summary: "One scene: its fields, world anchor (with calendar times) and refs",
      params: SceneParams,
    },
    async (c, { params }) =>
      c.json(
        getSceneDto(await openPlotContext(hub.workspace.project(params.project), "user"), params.sceneId),
      ),
  );
}
