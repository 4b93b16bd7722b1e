import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { historyOptionsSchema, sliceListSchema } from "../../world/api.js";
import { type Calendar, openCalendar } from "../../world/calendar/index.js";
import { openWorld, type World } from "../../world/world.js";
import type { ApiRoutes } from "../api.js";
import type { ServeHub } from "../hub.js";
import {
  HistorySchema,
  IssueListSchema,
  SliceListSchema,
  SubjectListSchema,
  SubjectStateSchema,
  WorldSchemaSchema,
} from "../responses.js";
import { ProjectParams, projectName } from "./common.js";

/** The World Engine's subject id rule, within the plot's length limit for a subject reference. */
const subjectId = z.string().max(200).pipe(sliceListSchema.shape.subjectIds.unwrap().element);
const SubjectParams = z.object({ project: projectName, subject: subjectId }).strict();
/** A time in the project's calendar, as the user writes it ("12 Fog 91 AL, 12:30"). */
const calendarTime = z.string().trim().min(1).max(200);

/** Open a project's world and calendar; times go in and out as calendar strings. */
async function worldOf(hub: ServeHub, name: string): Promise<{ world: World; calendar: Calendar }> {
  const project = hub.workspace.project(name);
  const calendar = await openCalendar(project);
  return { world: openWorld(project), calendar };
}

/** A calendar string as an instant; `invalid_input` pointing at the query field when it does not parse. */
function instant(calendar: Calendar, text: string | undefined, field: string): number | undefined {
  if (text === undefined) return undefined;
  try {
    return calendar.parse(text);
  } catch (e) {
    throw new NbError("invalid_input", (e as Error).message, {
      fields: [{ pointer: `/query/${field}`, message: "not a time in the project's calendar" }],
    });
  }
}

const withTime = <T extends { instant?: number }>(x: T, calendar: Calendar) =>
  x.instant === undefined ? x : { ...x, time: calendar.format(x.instant) };

/** The World Engine, read-only: schema, subjects, state at a time, history, slices, issues. */
export function registerWorldRoutes(routes: ApiRoutes, hub: ServeHub): void {
  const base = "/api/projects/:project/world";

  routes.add(
    {
      method: "get",
      path: `${base}/schema`,
      tag: "world",
      response: WorldSchemaSchema,
      summary: "Subject types, their attributes, and the calendar",
      params: ProjectParams,
    },
    async (c, { params }) => {
      const { world, calendar } = await worldOf(hub, params.project);
      return c.json({ schema: world.schema.describe(), calendar: calendar.describe() });
    },
  );

  routes.add(
    {
      method: "get",
      path: `${base}/subjects`,
      tag: "world",
      response: SubjectListSchema,
      summary: "Subjects (id, type, name)",
      params: ProjectParams,
      query: z.object({ type: z.string().min(1).max(200).optional() }).strict(),
    },
    async (c, { params, query }) => {
      const { world } = await worldOf(hub, params.project);
      return c.json({ subjects: world.subject.list(query.type) });
    },
  );

  routes.add(
    {
      method: "get",
      path: `${base}/subjects/:subject/state`,
      tag: "world",
      response: SubjectStateSchema,
      summary: "A subject's attributes at a calendar time (default: latest)",
      params: SubjectParams,
      query: z.object({ at: calendarTime.optional() }).strict(),
    },
    async (c, { params, query }) => {
      const { world, calendar } = await worldOf(hub, params.project);
      const at = instant(calendar, query.at, "at");
      const info = world.subject.info(params.subject);
      const state = world.subject.get(params.subject, at === undefined ? {} : { at });
      if (!info || !state) throw new NbError("not_found", `Unknown subject ${params.subject}`);
      return c.json({ ...info, at: at === undefined ? "latest" : calendar.format(at), state });
    },
  );

  routes.add(
    {
      method: "get",
      path: `${base}/subjects/:subject/history`,
      tag: "world",
      response: HistorySchema,
      summary: "Every change of a subject, in time order (optionally only one JSON Pointer's)",
      params: SubjectParams,
      query: historyOptionsSchema,
    },
    async (c, { params, query }) => {
      const { world, calendar } = await worldOf(hub, params.project);
      if (!world.subject.info(params.subject))
        throw new NbError("not_found", `Unknown subject ${params.subject}`);
      const rows = world.subject.history(params.subject, query);
      return c.json({ history: rows.map((r) => withTime(r, calendar)) });
    },
  );

  routes.add(
    {
      method: "get",
      path: `${base}/slices`,
      tag: "world",
      response: SliceListSchema,
      summary: "Slices in time order, between calendar times, touching subjects",
      params: ProjectParams,
      query: z
        .object({
          from: calendarTime.optional(),
          to: calendarTime.optional(),
          subject: sliceListSchema.shape.subjectIds,
          limit: sliceListSchema.shape.limit,
          patches: sliceListSchema.shape.withPatches,
        })
        .strict(),
    },
    async (c, { params, query }) => {
      const { world, calendar } = await worldOf(hub, params.project);
      const slices = world.slice.list({
        from: instant(calendar, query.from, "from"),
        to: instant(calendar, query.to, "to"),
        subjectIds: query.subject,
        limit: query.limit,
        withPatches: query.patches === true,
      });
      return c.json({ slices: slices.map((s) => withTime(s, calendar)) });
    },
  );

  routes.add(
    {
      method: "get",
      path: `${base}/issues`,
      tag: "world",
      response: IssueListSchema,
      summary: "Current data issues (E1–E5, A1, A2) with their explanations",
      params: ProjectParams,
      query: z
        .object({ subject: subjectId.optional(), slice: z.string().min(1).max(100).optional() })
        .strict(),
    },
    async (c, { params, query }) => {
      const { world, calendar } = await worldOf(hub, params.project);
      const issues = world.issues.list({ subjectId: query.subject, sliceId: query.slice });
      return c.json({ issues: issues.map((i) => withTime(i, calendar)) });
    },
  );
}
