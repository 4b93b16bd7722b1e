import { existsSync } from "node:fs";
import { plotDb } from "../plot/db.js";
import type { Project } from "../workspace/project.js";
import { openWorld } from "../world/world.js";

/** The scene a prose call is about, and its story time. */
export interface SceneTime {
  sceneId: number;
  title: string;
  /** The instant the scene's world state is read at: its end, else its start. */
  instant: number;
}

/** What names the scene: the scene itself, or a chapter (by id or name), whose first timed scene is taken. */
export interface SceneTarget {
  sceneId?: number;
  chapter?: string;
}

interface Row {
  id: number;
  title: string;
  start_instant: number | null;
  end_instant: number | null;
}

/**
 * The story time of the target scene, or null when the project has no plot yet, the scene or
 * chapter is unknown, or it has no time. A project without a plot database gets none created.
 */
export function sceneTime(project: Project, target: SceneTarget): SceneTime | null {
  if (target.sceneId === undefined && target.chapter === undefined) return null;
  if (!existsSync(project.dbPath("project"))) return null;
  const db = plotDb(project);
  const cols = "id, title, start_instant, end_instant";
  let row: Row | undefined;
  if (target.sceneId !== undefined) {
    row = db.prepare(`SELECT ${cols} FROM story_scene WHERE id = ?`).get(target.sceneId) as Row | undefined;
  } else {
    const chapter = target.chapter as string;
    const byId = /^\d+$/.test(chapter) ? Number(chapter) : -1;
    row = db
      .prepare(
        `SELECT ${cols} FROM story_scene WHERE chapter_id = (SELECT id FROM story_chapter WHERE id = ? OR name = ? LIMIT 1)
         AND status != 'archived' AND (end_instant IS NOT NULL OR start_instant IS NOT NULL)
         ORDER BY chapter_sort_order LIMIT 1`,
      )
      .get(byId, chapter) as Row | undefined;
  }
  const instant = row ? (row.end_instant ?? row.start_instant) : null;
  if (!row || instant === null) return null;
  return { sceneId: row.id, title: row.title, instant };
}

/** A World Engine subject's attributes at `instant`, or null when the subject is unknown or the world cannot be read. */
export function subjectStateAt(
  project: Project,
  subject: string,
  instant: number,
): Record<string, unknown> | null {
  if (!existsSync(project.dbPath("world"))) return null;
  try {
    return openWorld(project).subject.get(subject, { at: instant });
  } catch {
    // A broken world schema is reported where the world is used; canon goes on with the static text.
    return null;
  }
}
