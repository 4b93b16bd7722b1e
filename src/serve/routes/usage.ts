import { z } from "zod";
import {
  BudgetChangeSchema,
  changeSessionBudget,
  sessionBudgetStatus,
} from "../../harness/session-budget.js";
import { dayOf } from "../../harness/store/index.js";
import type { ApiRoutes } from "../api.js";
import type { ServeHub } from "../hub.js";
import {
  BudgetStatusSchema,
  CompactedSchema,
  ProjectUsageSchema,
  SessionContextSchema,
  SessionUsageSchema,
} from "../responses.js";
import { ProjectParams, sessionId } from "./common.js";

const SessionParams = z.object({ id: sessionId }).strict();
const today = (): string => dayOf(new Date().toISOString());

/** What each model call was sent and cost, usage and budgets, and `/compact` (issue 22 items 5–7). */
export function registerUsageRoutes(routes: ApiRoutes, hub: ServeHub): void {
  routes.add(
    {
      method: "get",
      path: "/api/sessions/:id/context",
      tag: "sessions",
      response: SessionContextSchema,
      summary:
        "What a model call of the session was sent (sections with token counts, canon and why) and its usage and cost; the latest call unless `call` names one",
      params: SessionParams,
      query: z.object({ call: z.number().int().positive().optional() }).strict(),
    },
    (c, { params, query }) => {
      const calls = hub.store.calls(params.id);
      const call = query.call !== undefined ? hub.store.call(params.id, query.call) : (calls.at(-1) ?? null);
      return c.json({
        call,
        calls: calls.map(({ manifest, ...rest }) => ({ ...rest, totalTokens: manifest.totalTokens })),
        usage: hub.store.sessionUsage(params.id),
      });
    },
  );

  routes.add(
    {
      method: "get",
      path: "/api/sessions/:id/usage",
      tag: "sessions",
      response: SessionUsageSchema,
      summary: "The session's tokens and cost, its project's today (UTC), and where the budgets stand",
      params: SessionParams,
    },
    (c, { params }) => {
      const session = hub.store.session(params.id);
      const day = today();
      const { harness } = hub.sessionHarness(params.id);
      return c.json({
        session: hub.store.sessionUsage(params.id),
        project: session.project,
        day,
        projectDay: hub.store.projectDayUsage(session.project, day),
        budget: harness.budget(params.id),
      });
    },
  );

  routes.add(
    {
      method: "get",
      path: "/api/sessions/:id/budget",
      tag: "sessions",
      response: BudgetStatusSchema,
      summary:
        "Where the session stands against its budgets: its limit (its own or the config's), its project's today, and whether a run may call the model",
      params: SessionParams,
    },
    (c, { params }) => c.json(sessionBudgetStatus(hub.store, hub.workspace, params.id)),
  );

  routes.add(
    {
      method: "post",
      path: "/api/sessions/:id/budget",
      tag: "sessions",
      response: BudgetStatusSchema,
      summary:
        "Raise, lower, lift or reset the session's own budget (it replaces budgets.session of the config for this session): new limits (usd, cny, tokens; the others stay), `lift: true` or `reset: true`. Continue the session afterwards",
      params: SessionParams,
      body: BudgetChangeSchema,
    },
    (c, { params, body }) => c.json(changeSessionBudget(hub.store, hub.workspace, params.id, body)),
  );

  routes.add(
    {
      method: "get",
      path: "/api/projects/:project/usage",
      tag: "projects",
      response: ProjectUsageSchema,
      summary: "The tokens and cost of the project's sessions on a UTC day (default today)",
      params: ProjectParams,
      query: z.object({ day: z.iso.date().optional() }).strict(),
    },
    (c, { params, query }) => {
      hub.workspace.project(params.project);
      const day = query.day ?? today();
      return c.json({ project: params.project, day, usage: hub.store.projectDayUsage(params.project, day) });
    },
  );

  routes.add(
    {
      method: "post",
      path: "/api/sessions/:id/compact",
      tag: "sessions",
      response: CompactedSchema,
      summary: "Summarise the session's older history now (between runs), keeping what `focus` names",
      params: SessionParams,
      body: z.object({ focus: z.string().trim().max(2000).optional() }).strict(),
    },
    async (c, { params, body }) => {
      const { harness } = hub.sessionHarness(params.id);
      const entry = await harness.compact(params.id, body.focus || undefined);
      const summary = entry?.kind === "compaction" ? entry.data.summary : null;
      return c.json({ compacted: summary !== null, summary });
    },
  );
}
