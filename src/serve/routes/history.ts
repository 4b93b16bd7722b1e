import { z } from "zod";
import { History } from "../../history/history.js";
import { historyStats, pruneHistory, repairHistory } from "../../history/maintenance.js";
import { revertChanges } from "../../history/revert.js";
import { blameFile, listChanges, selectChanges, showChange } from "../../history/review.js";
import type { Change } from "../../history/schema.js";
import { parseTime } from "../../history/time.js";
import type { ApiRoutes } from "../api.js";
import type { ServeHub } from "../hub.js";
import {
  BlameSchema,
  ChangeListSchema,
  ChangeShownSchema,
  type ChangeTurn,
  HistoryStatsSchema,
  PrunedSchema,
  RepairReportSchema,
  RevertedSchema,
} from "../responses.js";
import { ProjectParams, projectName } from "./common.js";

const changeId = z.string().min(1).max(40);
const ChangeParams = z.object({ project: projectName, id: changeId }).strict();
const ListQuery = z
  .object({
    session: z.string().min(1).optional(),
    turn: z.string().min(1).optional(),
    path: z.string().min(1).optional(),
    since: z.string().min(1).optional(),
    limit: z.coerce.number().int().positive().max(100_000).optional(),
  })
  .strict();
const BlameQuery = z.object({ path: z.string().min(1) }).strict();
const RevertBody = z
  .object({
    ids: z.array(changeId).max(1000).optional(),
    session: z.string().min(1).optional(),
    turn: z.string().min(1).optional(),
    since: z.string().min(1).optional(),
  })
  .strict();
const PruneBody = z.object({ before: z.string().min(1) }).strict();

/** How much of a turn's message titles its group. */
const TURN_TEXT_CHARS = 120;

/** The message a turn began with, on one line and cut short (null: its session or entry is gone). */
function turnText(hub: ServeHub, turn: string): Pick<ChangeTurn, "text" | "time"> {
  try {
    const e = hub.store.entry(turn);
    if (e.kind !== "user") return { text: null, time: null };
    const line = e.data.text.replace(/\s+/g, " ").trim();
    const text = line.length > TURN_TEXT_CHARS ? `${line.slice(0, TURN_TEXT_CHARS - 1)}…` : line;
    return { text, time: e.createdAt };
  } catch {
    return { text: null, time: null };
  }
}

/** The turns of these changes, once each, for grouping them under their message. */
function turnsOf(hub: ServeHub, changes: readonly Change[]) {
  const seen = new Map<string, ChangeTurn>();
  for (const c of changes) {
    if (c.turn === null || c.session === null || seen.has(c.turn)) continue;
    seen.set(c.turn, { session: c.session, turn: c.turn, ...turnText(hub, c.turn) });
  }
  return [...seen.values()];
}

/** The project's history: list, one change with its diff, blame, revert (the workbench's user), stats, prune, repair. */
export function registerHistoryRoutes(routes: ApiRoutes, hub: ServeHub): void {
  const base = "/api/projects/:project/history";
  const historyOf = (name: string) => History.of(hub.workspace.project(name));

  routes.add(
    {
      method: "get",
      path: base,
      tag: "history",
      response: ChangeListSchema,
      summary:
        "Recorded changes, newest first (edits made outside NeuroBook recorded first), with the turns they were made in; ?session ?turn ?path ?since ?limit",
      params: ProjectParams,
      query: ListQuery,
    },
    async (c, { params, query }) => {
      const h = historyOf(params.project);
      await h.recordOutside();
      const changes = await listChanges(h, {
        ...(query.session ? { session: query.session } : {}),
        ...(query.turn ? { turn: query.turn } : {}),
        ...(query.path ? { path: query.path } : {}),
        ...(query.since ? { since: parseTime(query.since, "since") } : {}),
        ...(query.limit ? { limit: query.limit } : {}),
      });
      return c.json({ changes, turns: turnsOf(hub, changes) });
    },
  );

  routes.add(
    {
      method: "get",
      path: `${base}/stats`,
      tag: "history",
      response: HistoryStatsSchema,
      summary: "How many changes the history holds, and its repository's and index's size in bytes",
      params: ProjectParams,
    },
    async (c, { params }) => c.json(await historyStats(historyOf(params.project))),
  );

  routes.add(
    {
      method: "get",
      path: `${base}/changes/:id`,
      tag: "history",
      response: ChangeShownSchema,
      summary: "One change: who made it, the unified diff of its files and the field diff of its plot rows",
      params: ChangeParams,
    },
    async (c, { params }) => c.json(await showChange(historyOf(params.project), params.id)),
  );

  routes.add(
    {
      method: "get",
      path: `${base}/blame`,
      tag: "history",
      response: BlameSchema,
      summary:
        "Who wrote each line of a file (you, outside edit, import, or the agent), and its words by each",
      params: ProjectParams,
      query: BlameQuery,
    },
    async (c, { params, query }) => c.json(await blameFile(historyOf(params.project), query.path)),
  );

  routes.add(
    {
      method: "post",
      path: `${base}/revert`,
      tag: "history",
      response: RevertedSchema,
      summary:
        "Take back changes (ids, a session's, a turn's, or those since a time) as a new change by you; 409 conflict (both versions in details.conflicts) writes nothing",
      params: ProjectParams,
      body: RevertBody,
    },
    async (c, { params, body }) => {
      const h = historyOf(params.project);
      await h.open();
      const changes = selectChanges(h, {
        ...(body.ids ? { ids: body.ids } : {}),
        ...(body.session ? { session: body.session } : {}),
        ...(body.turn ? { turn: body.turn } : {}),
        ...(body.since ? { since: parseTime(body.since, "since") } : {}),
      });
      const change = await revertChanges(h, changes, {});
      // The files screens put the reverted files back in their trees (a deleted chapter reappears).
      if (change?.targets?.length) hub.publishFilesChanged(params.project, null, "revert", change.targets);
      return c.json({ change });
    },
  );

  routes.add(
    {
      method: "post",
      path: `${base}/prune`,
      tag: "history",
      response: PrunedSchema,
      summary: "Forget changes before a time; later changes keep their diffs",
      params: ProjectParams,
      body: PruneBody,
    },
    async (c, { params, body }) =>
      c.json(await pruneHistory(historyOf(params.project), parseTime(body.before, "before"))),
  );

  routes.add(
    {
      method: "post",
      path: `${base}/repair`,
      tag: "history",
      response: RepairReportSchema,
      summary:
        "Make a missing or unreadable history usable again (an unreadable one is moved aside, never deleted)",
      params: ProjectParams,
    },
    async (c, { params }) => c.json(await repairHistory(historyOf(params.project))),
  );
}
