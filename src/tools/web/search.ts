import { z } from "zod";
import { defineTool } from "../define.js";
import { webSettingsFor } from "./settings.js";

const Domains = (max: number, what: string) =>
  z
    .array(z.string().min(1).max(253))
    .max(max)
    .optional()
    .describe(`${what} (bare domains such as example.com; subdomains count)`);

const Input = z
  .object({
    query: z
      .string()
      .min(2)
      .max(500)
      .describe(
        "What to search for. Keep it short; keep the user's own wording for names and acronyms you do not know.",
      ),
    allowed_domains: Domains(20, "Only results from these sites"),
    blocked_domains: Domains(50, "Never results from these sites"),
    recency_days: z.number().int().min(1).max(3650).optional().describe("Only results from the last N days"),
    max_results: z.number().int().min(1).max(10).optional().describe("How many results (default 5)"),
  })
  .strict();

export const webSearch = defineTool({
  key: "web_search",
  group: "web",
  description:
    "Search the web. Returns numbered results (title, link, date, snippet). The search provider is configured by the user, not chosen here. Cite the links you use; fetch a page with web_fetch only when the snippets are not enough.",
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
