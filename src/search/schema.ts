import { z } from "zod";

/** The folders the search index covers, by the name a query restricts to. */
export const AREAS = { manuscript: "manuscript", lorebook: "lorebook", plan: ".agent/plan" } as const;
export const AreaSchema = z.enum(["manuscript", "lorebook", "plan"]);
export type Area = z.infer<typeof AreaSchema>;

/** One line that matched: where it is, and a snippet with its matches as `[start, end)` offsets. */
export const SearchHitSchema = z.object({
  path: z.string().describe("project-relative file"),
  area: AreaSchema,
  chapter: z.string().nullable().describe("the chapter folder under manuscript/, else null"),
  title: z.string().nullable().describe("the file's first heading"),
  line: z.number().int().min(1),
  snippet: z.string(),
  highlights: z.array(z.tuple([z.number().int(), z.number().int()])),
});
export type SearchHit = z.infer<typeof SearchHitSchema>;

export const SearchResultSchema = z.object({
  query: z.string(),
  hits: z.array(SearchHitSchema),
  more: z.boolean().describe("more lines matched than the limit"),
});
export type SearchResult = z.infer<typeof SearchResultSchema>;

/** A search request as every door takes it. */
export const SearchRequestSchema = z
  .object({
    query: z.string().min(1).describe('all these words, a "quoted phrase" or a prefix*'),
    in: z.array(AreaSchema).min(1).optional(),
    limit: z.number().int().min(1).max(200).optional().describe("default 20 lines"),
  })
  .strict();
export type SearchRequest = z.infer<typeof SearchRequestSchema>;
