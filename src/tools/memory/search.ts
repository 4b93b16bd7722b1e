import { z } from "zod";
import { SOURCES } from "../../memory/files.js";
import { formatHits, searchSubject } from "../../memory/subjects.js";
import { defineTool } from "../define.js";
import { allowedSubject, SubjectPath, subjectFiles } from "./access.js";

const SearchInput = z
  .object({
    subjectPath: SubjectPath,
    query: z.string().trim().min(1).describe("What to look for, in the subject's own words"),
    sources: z
      .array(z.enum(SOURCES))
      .length(1, "must explicitly specify one and only one source")
      .describe(
        'Exactly one of ["events"] (what happened) or ["memory"] (current beliefs); call twice for both',
      ),
    limit: z.number().int().min(1).max(20).optional().describe("Hits to return (default 6 events, 4 memory)"),
  })
  .strict();

export const subjectRagSearchTool = defineTool({
  key: "subject_rag_search",
  group: "memory",
  description:
    "Search one subject's memory by keywords (trigram index: any language, Chinese included): its events (what it experienced) or its memory (current beliefs per topic). Sees only that subject.",
  input: SearchInput,
  effect: "read",
  async execute(input, ctx) {
    const path = allowedSubject(ctx, input.subjectPath);
    const source = input.sources[0] ?? "events";
    const r = await searchSubject(subjectFiles(ctx), path, source, input.query, input.limit);
    return {
      text: formatHits(source, r.hits),
      details: { subjectPath: r.path, source, count: r.hits.length, retrieval: "keyword" },
    };
  },
});
