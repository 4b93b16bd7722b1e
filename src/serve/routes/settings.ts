import { describeModels, loadModelsConfig } from "../../models/index.js";
import { ProfileCatalog } from "../../profiles/catalog.js";
import { createToolRegistry } from "../../tools/builtin.js";
import { loadWebSettings } from "../../web/config.js";
import type { ApiRoutes } from "../api.js";
import type { ServeHub } from "../hub.js";
import { type Settings, SettingsSchema } from "../responses.js";
import { ProjectQuery } from "./common.js";

type KeyState = Settings["webSearch"]["providers"][number]["key"];

function keyState(name: string | undefined): KeyState {
  if (!name) return "not_needed";
  return process.env[name] ? "set" : "missing";
}

/**
 * What the workbench's Settings screen shows: the model providers and which of their key variables
 * are set (never a key), the default and per-profile models, the embedding model and web search.
 * Read on every request, so an edited config shows at once.
 */
export function registerSettingsRoutes(routes: ApiRoutes, hub: ServeHub): void {
  const registry = createToolRegistry();
  routes.add(
    {
      method: "get",
      path: "/api/settings",
      tag: "models",
      response: SettingsSchema,
      summary:
        "Providers (key variables set or missing, never the keys), models per profile, embedding, web search",
      query: ProjectQuery,
    },
    (c, { query }) => {
      const project = query.project ? hub.workspace.project(query.project) : null;
      const roots = { workspaceRoot: hub.workspace.root, projectRoot: project?.root ?? null };
      const config = loadModelsConfig(roots);
      const profiles = new ProfileCatalog(registry, hub.workspace, project)
        .list()
        .filter((p) => p.creation === "public");
      const models = describeModels(config, process.env, { workspaceRoot: hub.workspace.root, profiles });
      const e = config.embedding;
      // A local model's folder is a path on this machine: the screen says only that it is local.
      const embedding = !e
        ? null
        : e.folder
          ? { kind: "local" as const, dimensions: e.dimensions }
          : {
              kind: "api" as const,
              provider: e.provider ?? null,
              model: e.model ?? null,
              dimensions: e.dimensions,
            };
      const web = loadWebSettings(roots);
      const webSearch = {
        order: web.search.order,
        providers: web.search.order.map((name) => {
          const p = web.search.providers[name];
          return {
            name,
            enabled: p.enabled,
            url: p.url ?? null,
            apiKeyEnv: p.apiKeyEnv ?? null,
            key: keyState(p.apiKeyEnv),
          };
        }),
      };
      return c.json({ models, embedding, webSearch });
    },
  );
}
