import { z } from "zod";
import { AreaSchema } from "../../search/schema.js";
import type { ApiRoutes } from "../api.js";
import type { ServeHub } from "../hub.js";
import { SearchResultSchema } from "../responses.js";
import { ProjectParams } from "./common.js";

const SearchQuery = z
  .object({
    q: z.string().min(1).describe('words (all required), a "quoted phrase", or a prefix*'),
    in: z.array(AreaSchema).min(1).optional().describe("only these areas (repeat the key for several)"),
    limit: z.number().int().min(1).max(200).optional().describe("lines at most (default 20)"),
  })
  .strict();

/** Full-text search of a project's manuscript, lorebook and plan. */
export function registerSearchRoutes(routes: ApiRoutes, hub: ServeHub): void {
  routes.add(
    {
      method: "get",
      path: "/api/projects/:project/search",
      tag: "files",
      response: SearchResultSchema,
      summary:
        "Lines of manuscript/, lorebook/ and .agent/plan/ matching the query, with chapter, line and highlighted snippet",
      params: ProjectParams,
      query: SearchQuery,
    },
    (c, { params, query }) =>
      c.json(
        hub.projectFiles(params.project).search({
          query: query.q,
          ...(query.in ? { in: query.in } : {}),
          ...(query.limit ? { limit: query.limit } : {}),
        }),
      ),
  );
}
