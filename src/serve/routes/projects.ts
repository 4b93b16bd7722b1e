import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { createSampleProject } from "../../sample/seed.js";
import type { Project } from "../../workspace/project.js";
import { ProjectMetaSchema } from "../../workspace/project-meta.js";
import { type ApiRoutes, fromBody } from "../api.js";
import type { ServeHub } from "../hub.js";
import { OneProjectSchema, ProjectListSchema } from "../responses.js";
import { ProjectParams, projectName } from "./common.js";

/** Files looked at for a project's last activity, at most. */
const ACTIVITY_SCAN_LIMIT = 2000;

/** The newest modification time under the project's lorebook/ and manuscript/ (bounded walk). */
function newestFileTime(project: Project): number {
  let newest = 0;
  let seen = 0;
  const walk = (dir: string) => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (++seen > ACTIVITY_SCAN_LIMIT) return;
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) newest = Math.max(newest, statSync(p, { throwIfNoEntry: false })?.mtimeMs ?? 0);
    }
  };
  walk(join(project.root, "lorebook"));
  walk(join(project.root, "manuscript"));
  return newest;
}

/** A project's metadata; a broken project.yaml is shown as its title, so the rest of the bookshelf still lists. */
function shownMeta(hub: ServeHub, project: Project): { title: string; summary: string; language: string } {
  try {
    return project.meta();
  } catch (e) {
    return { title: hub.workspace.brokenTitle(e), summary: "", language: "?" };
  }
}

/** What the bookshelf shows of a project. */
function projectView(hub: ServeHub, project: Project) {
  const meta = shownMeta(hub, project);
  const lastSession = hub.store.listSessions({ project: project.name, limit: 1 })[0];
  const times = [newestFileTime(project), lastSession ? Date.parse(lastSession.updatedAt) : 0];
  const newest = Math.max(...times.filter((t) => Number.isFinite(t)));
  return {
    name: project.name,
    title: meta.title,
    summary: meta.summary,
    language: meta.language,
    lastActivity: newest > 0 ? new Date(newest).toISOString() : null,
  };
}

const CreateBody = z
  .object({
    name: projectName,
    title: ProjectMetaSchema.shape.title.optional(),
    summary: ProjectMetaSchema.shape.summary.unwrap().optional(),
    language: ProjectMetaSchema.shape.language.unwrap().optional(),
    sample: z.boolean().optional().describe("start from the sample novel (with its world and plot)"),
  })
  .strict();

/** Projects: list (the bookshelf), create (optionally from the sample), open. */
export function registerProjectRoutes(routes: ApiRoutes, hub: ServeHub): void {
  const ws = hub.workspace;

  routes.add(
    {
      method: "get",
      path: "/api/projects",
      tag: "projects",
      response: ProjectListSchema,
      summary: "The workspace's projects",
    },
    (c) => c.json({ projects: ws.listProjects().map((p) => projectView(hub, ws.project(p.name))) }),
  );

  routes.add(
    {
      method: "post",
      path: "/api/projects",
      tag: "projects",
      response: OneProjectSchema,
      summary: "Create a project (from the sample novel with sample: true)",
      body: CreateBody,
      status: 201,
    },
    async (c, { body }) => {
      const opts = { title: body.title, summary: body.summary, language: body.language };
      const project = await fromBody(() =>
        body.sample ? createSampleProject(ws, body.name, opts) : ws.createProject(body.name, opts),
      );
      const view = projectView(hub, project);
      hub.events.publish("project_created", { project: view });
      return c.json({ project: view }, 201);
    },
  );

  routes.add(
    {
      method: "post",
      path: "/api/projects/:project/open",
      tag: "projects",
      response: OneProjectSchema,
      summary: "Open a project: its details, with its agents ready",
      params: ProjectParams,
    },
    (c, { params }) => {
      const project = ws.project(params.project);
      hub.harness(project.name);
      return c.json({ project: projectView(hub, project) });
    },
  );
}
