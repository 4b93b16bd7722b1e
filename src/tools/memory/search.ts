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
    query: z.string().trim().min(1),
    sources: z
      .array(z.enum(SOURCES))
      .min(1, 'must name a source: ["events"], ["memory"] or both')
      .max(2, "must name each source at most once")
      .refine((s) => new Set(s).size === s.length, "must name each source at most once"),
    limit: z.number().int().min(1).max(20).optional(),
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
    "Search a subject's events (what happened) and/or memory (current beliefs), in its own words, any language.",
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
