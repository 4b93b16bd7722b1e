import { z } from "zod";
import { recencyWindow } from "./recency.js";
import { ProviderError, requestJson } from "./request.js";
import type { ProviderFactory, SearchHit } from "./types.js";

/** The parts of SearXNG's `format=json` answer that are used. */
const Answer = z.looseObject({
  results: z.array(
    z.looseObject({
      url: z.string().optional(),
      title: z.string().optional(),
      content: z.string().nullish(),
      engine: z.string().optional(),
      engines: z.array(z.string()).optional(),
      publishedDate: z.string().nullish(),
      score: z.number().optional(),
    }),
  ),
});

/**
 * A SearXNG instance (self-hosted, no account): `GET <url>/search?format=json`. Its URL is the
 * user's own service and may be on localhost; the result URLs it returns are only text here.
 */
export const searxngProvider: ProviderFactory = (settings, key) => ({
  name: "searxng",
  async search(req, signal) {
    const base = (settings.url ?? "").replace(/\/*$/, "/");
    const url = new URL("search", base);
    const site = req.allowedDomains.length === 1 ? ` site:${req.allowedDomains[0]}` : "";
    url.searchParams.set("q", req.query + site);
    url.searchParams.set("format", "json");
    if (req.recencyDays) url.searchParams.set("time_range", recencyWindow(req.recencyDays));
    if (settings.options.language) url.searchParams.set("language", settings.options.language);
    const raw = await requestJson(
      url,
      {
        timeoutMs: settings.timeoutMs,
        ...(key ? { headers: { authorization: `Bearer ${key}` }, secret: key } : {}),
      },
      signal,
    );
    const answer = Answer.safeParse(raw);
    if (!answer.success) throw new ProviderError("the answer has no results list (is format=json enabled?)");
    const hits: SearchHit[] = [];
    for (const r of answer.data.results) {
      if (!r.url || !r.title) continue;
      const source = r.engines?.length ? r.engines.join(", ") : r.engine;
      hits.push({
        title: r.title.trim(),
        url: r.url,
        snippet: (r.content ?? "").trim(),
        ...(source ? { source } : {}),
        ...(r.publishedDate ? { publishedAt: r.publishedDate } : {}),
        ...(r.score !== undefined ? { score: r.score } : {}),
      });
    }
    return hits;
  },
});
