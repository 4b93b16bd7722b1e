import type { Project } from "../workspace/project.js";
import { type Calendar, loadCalendar, ScriptedCalendar } from "../world/calendar/index.js";
import { openWorld } from "../world/world.js";
import type { PlotContext } from "./context.js";
import { plotDb } from "./db.js";
import { WorldLink } from "./world-link.js";

/** Everything a plot call needs for one project, acting as `actor` (a profile key or "user"). */
export function plotContext(project: Project, actor: string): PlotContext {
  return {
    db: plotDb(project),
    actor,
    world: project.resource(
      "plot-world",
      () =>
        new WorldLink(
          () => openWorld(project),
          () => loadCalendar(project),
        ),
    ),
    language: project.meta().language,
  };
}

/**
 * plotContext, after loading what the project's calendar needs to run: a calendar scripted in
 * JavaScript converts times in the sandbox, which loads asynchronously. Every door that may convert
 * a calendar string (agent tools, CLI) opens its context this way.
 */
export async function openPlotContext(project: Project, actor: string): Promise<PlotContext> {
  let calendar: Calendar | null = null;
  try {
    calendar = loadCalendar(project);
  } catch {
    // A broken calendar reports itself where a time is converted; other plot calls still work.
  }
  if (calendar instanceof ScriptedCalendar) await calendar.ready();
  return plotContext(project, actor);
}

export { getChapterWriterBrief } from "./brief.js";
export { saveAct, saveChapter } from "./carrier.js";
export type { PlotContext } from "./context.js";
export { getDecisionDto, saveDecision } from "./decisions.js";
export { listChapters, listDecisions, listPromises, listScenes, listThreads } from "./lists.js";
export { listPhases, savePhase } from "./phases.js";
export { getPromiseDetail, saveBeat, savePromise } from "./promises.js";
export { saveScene } from "./scenes.js";
export { saveThread } from "./threads.js";
export { getStoryTree } from "./tree.js";
export { getChapterDetail, getSceneContext, getSceneWorldContext, getThreadDetail } from "./views.js";
