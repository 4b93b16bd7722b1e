import { z } from "zod";
import { defineTool } from "../define.js";
import { webSettingsFor } from "./settings.js";

const Domains = (max: number, what: string) =>
  z
    .array(z.string().min(1).max(253))
    .max(max)
    .optional()
    .describe(`${what} (example.com covers its subdomains)`);

const Input = z
  .object({
    query: z.string().min(2).max(500).describe("short; keep the user's wording for unknown names"),
    allowed_domains: Domains(20, "only these sites"),
    blocked_domains: Domains(50, "never these sites"),
    recency_days: z.number().int().min(1).max(3650).optional(),
    max_results: z.number().int().min(1).max(10).optional().describe("default 5"),
  })
  .strict();

export const webSearch = defineTool({
  key: "web_search",
  group: "web",
  description: "Search the web: numbered results (title, link, date, snippet). Cite the links you use.",
  input: Input,
  effect: "read",
  async execute(input, ctx) {
    const [settings, search] = await Promise.all([webSettingsFor(ctx), import("../../web/search/index.js")]);
    const outcome = await search.searchWeb(
      search.searchRequest({
        query: input.query,
        allowedDomains: input.allowed_domains,
        blockedDomains: input.blocked_domains,
        recencyDays: input.recency_days,
        maxResults: input.max_results,
      }),
      settings.search,
      { ...(ctx.signal ? { signal: ctx.signal } : {}) },
    );
    return { text: search.formatSearch(outcome), details: outcome };
  },
});
