import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { describeModels, loadModelsConfig } from "../../models/index.js";
import { overridesBuiltin, ProfileCatalog } from "../../profiles/catalog.js";
import { describeProfile } from "../../profiles/describe.js";
import { listSkills, readSkillText, resolveSkillFile, skillView } from "../../skills/index.js";
import { createToolRegistry } from "../../tools/builtin.js";
import type { ToolRegistry } from "../../tools/registry.js";
import type { Project } from "../../workspace/project.js";
import type { ApiRoutes } from "../api.js";
import type { ServeHub } from "../hub.js";
import {
  ModelsStatusSchema,
  OneSkillSchema,
  ProfileDescriptionSchema,
  ProfileListSchema,
  SkillListSchema,
} from "../responses.js";
import { ProjectQuery } from "./common.js";

/** Models (configured, missing keys), profiles and skills, each with a project's layer when `?project=`. */
export function registerCatalogRoutes(routes: ApiRoutes, hub: ServeHub): void {
  let registry: ToolRegistry | null = null;
  const tools = () => {
    registry ??= createToolRegistry();
    return registry;
  };
  const projectOf = (name: string | undefined): Project | null => (name ? hub.workspace.project(name) : null);
  const catalogOf = (project: Project | null) => new ProfileCatalog(tools(), hub.workspace, project);

  routes.add(
    {
      method: "get",
      path: "/api/models",
      tag: "models",
      response: ModelsStatusSchema,
      summary: "Configured providers and models, missing key variables, each profile's model",
      query: ProjectQuery,
    },
    (c, { query }) => {
      const project = projectOf(query.project);
      const config = loadModelsConfig({ workspaceRoot: hub.workspace.root, projectRoot: project?.root });
      const status = describeModels(config, process.env, {
        workspaceRoot: hub.workspace.root,
        profiles: catalogOf(project)
          .list()
          .filter((p) => p.creation === "public"),
      });
      return c.json(status);
    },
  );

  routes.add(
    {
      method: "get",
      path: "/api/profiles",
      tag: "profiles",
      response: ProfileListSchema,
      summary: "Usable agent profiles (built-in, user, project) and files that failed to load",
      query: ProjectQuery,
    },
    (c, { query }) => {
      const catalog = catalogOf(projectOf(query.project));
      const profiles = catalog.list().map((p) => ({
        key: p.key,
        name: p.name,
        description: p.description,
        creation: p.creation,
        source: p.source,
        overridesBuiltin: overridesBuiltin(p),
        tools: p.tools.length,
      }));
      return c.json({ profiles, problems: catalog.problems });
    },
  );

  routes.add(
    {
      method: "get",
      path: "/api/profiles/:key",
      tag: "profiles",
      response: ProfileDescriptionSchema,
      summary: "One profile: creation mode, schemas (JSON Schema), tool keys",
      params: z.object({ key: z.string().min(1).max(100) }).strict(),
      query: ProjectQuery,
    },
    (c, { params, query }) => c.json(describeProfile(catalogOf(projectOf(query.project)).get(params.key))),
  );

  routes.add(
    {
      method: "get",
      path: "/api/skills",
      tag: "skills",
      response: SkillListSchema,
      summary: "Skills (built-in, workspace, project) with their status",
      query: ProjectQuery,
    },
    (c, { query }) => c.json({ skills: listSkills(hub.workspace, projectOf(query.project)).map(skillView) }),
  );

  routes.add(
    {
      method: "get",
      path: "/api/skills/:name",
      tag: "skills",
      response: OneSkillSchema,
      summary: "One skill and its SKILL.md",
      params: z.object({ name: z.string().min(1).max(100) }).strict(),
      query: ProjectQuery,
    },
    (c, { params, query }) => {
      const s = listSkills(hub.workspace, projectOf(query.project)).find((x) => x.name === params.name);
      if (!s) throw new NbError("not_found", `No skill named ${params.name}`);
      if (s.status === "broken") throw new NbError("config_error", `Skill ${s.name} is broken: ${s.reason}`);
      const text = readSkillText(resolveSkillFile(hub.workspace, projectOf(query.project), s.locator));
      return c.json({ skill: skillView(s), text });
    },
  );
}
