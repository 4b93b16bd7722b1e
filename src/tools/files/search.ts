import { NbError } from "../../core/errors.js";
import { formatResult } from "../../search/format.js";
import { ProjectSearch } from "../../search/project-search.js";
import { SearchRequestSchema } from "../../search/schema.js";
import { defineTool } from "../define.js";

export const searchTool = defineTool({
  key: "search",
  group: "files",
  description:
    "Full-text search of manuscript/, lorebook/ and .agent/plan/ (faster than grep); Chinese matches anywhere, other words whole.",
  input: SearchRequestSchema,
  effect: "read",
  async execute(input, ctx) {
    if (ctx.project === null)
      throw new NbError("not_allowed", "Project not open: search looks in a project's files");
    const index = ProjectSearch.shared(ctx.project);
    // Every call sees the files as they are: the sync re-reads only files whose identity changed.
    index.sync();
    const r = index.search(input);
    return {
      text: formatResult(r),
      details: { query: r.query, count: r.hits.length, more: r.more, hits: r.hits },
    };
  },
});
