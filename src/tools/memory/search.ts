import { z } from "zod";
import { SOURCES } from "../../memory/files.js";
import { formatHits, searchSubject } from "../../memory/subjects.js";
import { loadModelsConfig } from "../../models/config.js";
import { embeddingProvider } from "../../models/embeddings/resolve.js";
import { defineTool } from "../define.js";
import type { ToolContext } from "../types.js";
import { allowedSubject, SubjectPath, subjectFiles } from "./access.js";

const SearchInput = z
  .object({
    subjectPath: SubjectPath,
    query: z.string().trim().min(1).describe("What to look for, in the subject's own words"),
    sources: z
      .array(z.enum(SOURCES))
      .min(1, 'must name a source: ["events"], ["memory"] or both')
      .max(2, "must name each source at most once")
      .refine((s) => new Set(s).size === s.length, "must name each source at most once")
      .describe(
        '["events"] (what happened), ["memory"] (current beliefs), or both (each source ranked apart)',
      ),
    limit: z
      .number()
      .int()
      .min(1)
      .max(20)
      .optional()
      .describe("Hits per source (default 6 events, 4 memory)"),
  })
  .strict();

/** The configured embedding model of the call's workspace and project, or null (keyword search). */
function configuredEmbedding(ctx: ToolContext) {
  const config = loadModelsConfig({
    workspaceRoot: ctx.workspace.root,
    projectRoot: ctx.project?.root ?? null,
  });
  return embeddingProvider(config, process.env);
}

export const subjectRagSearchTool = defineTool({
  key: "subject_rag_search",
  group: "memory",
  description:
    "Search one subject's memory: its events (what it experienced) and/or its memory (current beliefs per topic). Keyword search in any language (Chinese included), combined with meaning-based search when an embedding model is configured. Sees only that subject.",
  input: SearchInput,
  effect: "read",
  async execute(input, ctx) {
    const path = allowedSubject(ctx, input.subjectPath);
    const files = subjectFiles(ctx, "none");
    const r = await searchSubject(files, path, input.sources, input.query, {
      ...(input.limit === undefined ? {} : { limit: input.limit }),
      embedding: configuredEmbedding(ctx),
    });
    const counts = Object.fromEntries(r.results.map((s) => [s.source, s.hits.length]));
    const warnings = r.results.flatMap((s) => s.warnings);
    const said = warnings.map((w) => `Warning: ${w}\n\n`).join("");
    return {
      text: said + r.results.map((s) => formatHits(s.source, s.hits)).join("\n\n"),
      details: {
        subjectPath: r.path,
        sources: input.sources,
        count: r.results.reduce((n, s) => n + s.hits.length, 0),
        counts,
        retrieval: r.retrieval,
        ...(warnings.length ? { warnings } : {}),
      },
    };
  },
});
