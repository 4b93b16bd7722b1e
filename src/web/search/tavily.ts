import { z } from "zod";
import { recencyWindow } from "./recency.js";
import { ProviderError, requestJson } from "./request.js";
import type { ProviderFactory, SearchHit } from "./types.js";

const Answer = z.looseObject({
  results: z.array(
    z.looseObject({
      title: z.string().optional(),
      url: z.string().optional(),
      content: z.string().nullish(),
      score: z.number().optional(),
      published_date: z.string().nullish(),
    }),
  ),
});

/** Tavily: `POST /search` with a bearer key; takes the domain lists and a time range itself. */
export const tavilyProvider: ProviderFactory = (settings, key) => ({
  name: "tavily",
  async search(req, signal) {
    const filtered = req.allowedDomains.length + req.blockedDomains.length > 0;
    const body: Record<string, unknown> = {
      query: req.query,
      max_results: Math.min(20, filtered ? req.maxResults * 2 : req.maxResults),
      search_depth: settings.options.searchDepth ?? "basic",
      include_answer: false,
      include_raw_content: false,
    };
    if (req.allowedDomains.length) body.include_domains = req.allowedDomains;
    if (req.blockedDomains.length) body.exclude_domains = req.blockedDomains;
    if (req.recencyDays) body.time_range = recencyWindow(req.recencyDays);
    const raw = await requestJson(
      new URL(settings.url ?? ""),
      {
        method: "POST",
        headers: { authorization: `Bearer ${key ?? ""}`, "content-type": "application/json" },
        body,
        timeoutMs: settings.timeoutMs,
        ...(key ? { secret: key } : {}),
      },
      signal,
    );
    const answer = Answer.safeParse(raw);
    if (!answer.success) throw new ProviderError("the answer has no results list");
    const hits: SearchHit[] = [];
    for (const r of answer.data.results) {
      if (!r.url || !r.title) continue;
      hits.push({
        title: r.title.trim(),
        url: r.url,
        snippet: (r.content ?? "").trim(),
        ...(r.published_date ? { publishedAt: r.published_date } : {}),
        ...(r.score !== undefined ? { score: r.score } : {}),
      });
    }
    return hits;
  },
});
