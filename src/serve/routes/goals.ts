import { z } from "zod";
import { GoalsSchema, readGoals, writeGoals } from "../../goals/goals.js";
import { bookProgress } from "../../goals/progress.js";
import { wordLog } from "../../goals/word-log.js";
import { History } from "../../history/history.js";
import type { Project } from "../../workspace/project.js";
import type { ApiRoutes } from "../api.js";
import type { ServeHub } from "../hub.js";
import { GoalsViewSchema } from "../responses.js";
import { ProjectParams } from "./common.js";

/** Days the log shows, today included. */
const DAYS = 14;

async function view(project: Project, goals = readGoals(project)) {
  return {
    goals,
    progress: bookProgress(project, goals),
    days: await wordLog(project, History.of(project), DAYS),
  };
}

/** Goals and the daily log: targets per day, book and chapter; words written per day by you and by agents. */
export function registerGoalsRoutes(routes: ApiRoutes, hub: ServeHub): void {
  const path = "/api/projects/:project/goals";
  routes.add(
    {
      method: "get",
      path,
      tag: "goals",
      response: GoalsViewSchema,
      summary: `The goals, each chapter's words against its target, and the words written on each of the last ${DAYS} days by you and by agents (from the history)`,
      params: ProjectParams,
    },
    async (c, { params }) => c.json(await view(hub.workspace.project(params.project))),
  );
  routes.add(
    {
      method: "put",
      path,
      tag: "goals",
      response: GoalsViewSchema,
      summary: "Replace the goals (words per day, for the book, per chapter file); null or absent clears one",
      params: ProjectParams,
      body: z.object({ goals: GoalsSchema }).strict(),
    },
    async (c, { params, body }) => {
      const project = hub.workspace.project(params.project);
      return c.json(await view(project, writeGoals(project, body.goals)));
    },
  );
}
