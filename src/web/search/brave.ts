import { z } from "zod";
import { daysAgo, recencyWindow } from "./recency.js";
import { ProviderError, requestJson } from "./request.js";
import type { ProviderFactory, SearchHit } from "./types.js";

const Answer = z.looseObject({
  web: z
    .looseObject({
      results: z.array(
        z.looseObject({
          title: z.string().optional(),
          url: z.string().optional(),
          description: z.string().optional(),
          page_age: z.string().optional(),
          age: z.string().optional(),
          profile: z.looseObject({ name: z.string().optional() }).optional(),
        }),
      ),
    })
    .optional(),
});

const FRESHNESS = { day: "pd", week: "pw", month: "pm", year: "py" } as const;

/** Brave's `freshness`: pd/pw/pm/py by the usual windows, an exact date range beyond a year. */
export function braveFreshness(days: number, now = new Date()): string {
  if (days > 365) return `${daysAgo(days, now)}to${now.toISOString().slice(0, 10)}`;
  return FRESHNESS[recencyWindow(days)];
}

/** Brave wraps matched words in <strong> and escapes entities in its snippets. */
function plain(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&quot;/g, '"')
    .replace(/&#0?39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .trim();
}

/** Brave Search API: `GET …/res/v1/web/search`, key in `X-Subscription-Token`; no domain parameters. */
export const braveProvider: ProviderFactory = (settings, key) => ({
  name: "brave",
  async search(req, signal) {
    const url = new URL(settings.url ?? "");
    const site = req.allowedDomains.length === 1 ? ` site:${req.allowedDomains[0]}` : "";
    const filtered = req.allowedDomains.length + req.blockedDomains.length > 0;
    url.searchParams.set("q", req.query + site);
    url.searchParams.set("count", String(Math.min(20, filtered ? req.maxResults * 2 : req.maxResults)));
    url.searchParams.set("country", (settings.options.country ?? "US").toUpperCase());
    url.searchParams.set("search_lang", settings.options.searchLang ?? "en");
    if (req.recencyDays) url.searchParams.set("freshness", braveFreshness(req.recencyDays));
    const raw = await requestJson(
      url,
      {
        timeoutMs: settings.timeoutMs,
        headers: { "x-subscription-token": key ?? "" },
        ...(key ? { secret: key } : {}),
      },
      signal,
    );
    const answer = Answer.safeParse(raw);
    if (!answer.success) throw new ProviderError("the answer is not a Brave web search result");
    const hits: SearchHit[] = [];
    for (const r of answer.data.web?.results ?? []) {
      if (!r.url || !r.title) continue;
      const published = r.page_age ?? r.age;
      hits.push({
        title: plain(r.title),
        url: r.url,
        snippet: plain(r.description ?? ""),
        ...(r.profile?.name ? { source: r.profile.name } : {}),
        ...(published ? { publishedAt: published } : {}),
      });
    }
    return hits;
  },
});
