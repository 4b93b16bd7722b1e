import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ErrorInfo } from "../../src/core/errors.js";
import { parseWebConfig, webSettings } from "../../src/web/config.js";
import { braveFreshness } from "../../src/web/search/brave.js";
import { searchRequest, searchWeb } from "../../src/web/search/index.js";
import { makeTestBed } from "../helpers.js";
import { type FixtureServer, type Handler, respond, startFixtureServer } from "./fixture-server.js";

const KEY = "sk-test-secret-123";

// Answers in each provider's real response format (fields trimmed to a realistic subset).
const SEARXNG_ANSWER = {
  query: "drowned bell",
  number_of_results: 0,
  results: [
    {
      url: "https://www.example.com/bells",
      title: "The Drowned Bell",
      content: "A bell under the sea.",
      engine: "duckduckgo",
      parsed_url: ["https", "www.example.com", "/bells", "", "", ""],
      template: "default.html",
      engines: ["duckduckgo", "brave"],
      positions: [1, 2],
      publishedDate: "2025-05-01T00:00:00",
      score: 3,
      category: "general",
    },
    { url: "https://wiki.example.net/Bell", title: "", content: "no title: dropped", engine: "wikipedia" },
    {
      url: "https://wiki.example.net/Tide",
      title: "Tide",
      content: null,
      engine: "wikipedia",
      publishedDate: null,
      score: 1,
    },
  ],
  answers: [],
  corrections: [],
  infoboxes: [],
  suggestions: [],
  unresponsive_engines: [],
};

const braveResult = (title: string, url: string, extra: Record<string, unknown> = {}) => ({
  title,
  url,
  is_source_local: false,
  is_source_both: false,
  description: `About <strong>${title}</strong> &amp; more`,
  profile: { name: new URL(url).hostname, url, long_name: new URL(url).hostname, img: "" },
  language: "en",
  family_friendly: true,
  type: "search_result",
  subtype: "generic",
  meta_url: { scheme: "https", netloc: new URL(url).hostname, hostname: new URL(url).hostname, path: "› x" },
  ...extra,
});

const BRAVE_ANSWER = {
  type: "search",
  query: { original: "drowned bell", more_results_available: true },
  mixed: { type: "mixed", main: [] },
  web: {
    type: "search",
    results: [
      braveResult("Bell news", "https://news.example.org/bell", {
        page_age: "2025-05-20T08:00:00",
        age: "May 20, 2025",
      }),
      braveResult("Blocked subdomain", "https://blog.blocked.com/post"),
      braveResult("Blocked www", "https://www.blocked.com/"),
      braveResult("Old news", "https://old.example.org/1999", { page_age: "1999-01-01T00:00:00" }),
      braveResult("Undated", "https://undated.example.org/"),
    ],
    family_friendly: true,
  },
};

/** Two days ago, in the RFC 1123 form Tavily uses: within any recency window asked for below. */
const RECENT = new Date(Date.now() - 2 * 86_400_000).toUTCString();

const TAVILY_ANSWER = {
  query: "drowned bell",
  follow_up_questions: null,
  answer: null,
  images: [],
  results: [
    {
      title: "Tavily bell",
      url: "https://tavily.example.com/bell",
      content: "A bell, found by Tavily.",
      score: 0.81,
      raw_content: null,
      published_date: RECENT,
    },
  ],
  response_time: 1.02,
};

const json = (body: unknown, status = 200): Handler =>
  respond(status, { "content-type": "application/json" }, JSON.stringify(body));
/** Never answers: the client's timeout must fire. */
const silent: Handler = () => {};

let server: FixtureServer;
beforeAll(async () => {
  server = await startFixtureServer({
    "/searxng/search": json(SEARXNG_ANSWER),
    "/brave": json(BRAVE_ANSWER),
    "/tavily": json(TAVILY_ANSWER),
    "/fail500": json({ detail: { error: `Internal error for key ${KEY}` } }, 500),
    "/silent/search": silent,
    "/silent": silent,
    "/notjson": respond(200, { "content-type": "text/html" }, "<html>login</html>"),
  });
});
afterAll(() => server.close());

type Providers = Record<string, Record<string, unknown>>;
const settingsFor = (order: string[], providers: Providers) =>
  webSettings(parseWebConfig({ search: { order, providers } }, "test config")).search;
const env = { TEST_BRAVE_KEY: KEY, TEST_TAVILY_KEY: KEY };
const brave = (path = "/brave", more: Record<string, unknown> = {}) => ({
  url: server.url(path),
  apiKeyEnv: "TEST_BRAVE_KEY",
  ...more,
});
const tavily = (path = "/tavily", more: Record<string, unknown> = {}) => ({
  url: server.url(path),
  apiKeyEnv: "TEST_TAVILY_KEY",
  ...more,
});
const lastRequest = (prefix: string) => [...server.requests].reverse().find((r) => r.url.startsWith(prefix));

async function failure(p: Promise<unknown>): Promise<ErrorInfo> {
  try {
    await p;
  } catch (e) {
    return (e as { toInfo(): ErrorInfo }).toInfo();
  }
  throw new Error("expected a failure");
}

describe("provider mapping", () => {
  it("SearXNG: GET /search?format=json, engines as source, untitled entries dropped", async () => {
    const s = settingsFor(["searxng"], { searxng: { url: server.url("/searxng"), language: "zh-CN" } });
    const out = await searchWeb(searchRequest({ query: "drowned bell", recencyDays: 3 }), s, { env });
    const q = new URL(lastRequest("/searxng/search")?.url ?? "", "http://x").searchParams;
    expect(Object.fromEntries(q)).toEqual({
      q: "drowned bell",
      format: "json",
      time_range: "week",
      language: "zh-CN",
    });
    expect(out.provider).toBe("searxng");
    // SearXNG's window is a week; the result dated May 2025 is older than three days and is dropped locally.
    expect(out.results).toEqual([
      { title: "Tide", url: "https://wiki.example.net/Tide", snippet: "", source: "wikipedia", score: 1 },
    ]);
    const all = await searchWeb(searchRequest({ query: "drowned bell" }), s, { env });
    expect(all.results[0]).toEqual({
      title: "The Drowned Bell",
      url: "https://www.example.com/bells",
      snippet: "A bell under the sea.",
      source: "duckduckgo, brave",
      publishedAt: "2025-05-01T00:00:00",
      score: 3,
    });
    expect(all.results).toHaveLength(2);
  });

  it("Brave: key in X-Subscription-Token, count/country/search_lang/freshness, snippets as plain text", async () => {
    const s = settingsFor(["brave"], { brave: brave("/brave", { country: "de", searchLang: "zh-hans" }) });
    const out = await searchWeb(searchRequest({ query: "drowned bell", maxResults: 2 }), s, { env });
    const req = lastRequest("/brave");
    expect(req?.headers["x-subscription-token"]).toBe(KEY);
    const q = Object.fromEntries(new URL(req?.url ?? "", "http://x").searchParams);
    expect(q).toEqual({ q: "drowned bell", count: "2", country: "DE", search_lang: "zh-hans" });
    expect(out.results).toEqual([
      {
        title: "Bell news",
        url: "https://news.example.org/bell",
        snippet: "About Bell news & more",
        source: "news.example.org",
        publishedAt: "2025-05-20T08:00:00",
      },
      {
        title: "Blocked subdomain",
        url: "https://blog.blocked.com/post",
        snippet: "About Blocked subdomain & more",
        source: "blog.blocked.com",
      },
    ]);
  });

  it("Tavily: POST with a bearer key, domains and time range in the body", async () => {
    const s = settingsFor(["tavily"], { tavily: tavily() });
    const out = await searchWeb(
      searchRequest({
        query: "drowned bell",
        allowedDomains: ["https://www.Tavily.example.com/x"],
        blockedDomains: ["spam.example"],
        recencyDays: 30,
        maxResults: 3,
      }),
      s,
      { env },
    );
    const req = lastRequest("/tavily");
    expect(req?.method).toBe("POST");
    expect(req?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.parse(req?.body ?? "{}")).toEqual({
      query: "drowned bell",
      max_results: 6,
      search_depth: "basic",
      include_answer: false,
      include_raw_content: false,
      include_domains: ["tavily.example.com"],
      exclude_domains: ["spam.example"],
      time_range: "month",
    });
    expect(out.results).toEqual([
      {
        title: "Tavily bell",
        url: "https://tavily.example.com/bell",
        snippet: "A bell, found by Tavily.",
        publishedAt: RECENT,
        score: 0.81,
      },
    ]);
  });
});

describe("recency mapping", () => {
  it("maps days to each provider's windows", async () => {
    const cases: [number, string, string][] = [
      [1, "day", "pd"],
      [2, "week", "pw"],
      [7, "week", "pw"],
      [8, "month", "pm"],
      [31, "month", "pm"],
      [32, "year", "py"],
      [365, "year", "py"],
    ];
    const all = settingsFor(["searxng", "brave", "tavily"], {
      searxng: { url: server.url("/searxng") },
      brave: brave(),
      tavily: tavily(),
    });
    for (const [days, window, freshness] of cases) {
      const req = searchRequest({ query: "bell", recencyDays: days });
      await searchWeb(req, { ...all, order: ["searxng"] }, { env });
      await searchWeb(req, { ...all, order: ["brave"] }, { env });
      await searchWeb(req, { ...all, order: ["tavily"] }, { env });
      expect(
        new URL(lastRequest("/searxng")?.url ?? "", "http://x").searchParams.get("time_range"),
        `${days}`,
      ).toBe(window);
      expect(
        new URL(lastRequest("/brave")?.url ?? "", "http://x").searchParams.get("freshness"),
        `${days}`,
      ).toBe(freshness);
      expect(JSON.parse(lastRequest("/tavily")?.body ?? "{}").time_range, `${days}`).toBe(window);
    }
  });

  it("asks Brave for an exact date range beyond a year", () => {
    expect(braveFreshness(400, new Date("2025-06-01T12:00:00Z"))).toBe("2024-04-27to2025-06-01");
  });
});

describe("fall-through and filters", () => {
  it("Tavily HTTP 500 falls through to Brave; the reason is kept, the echoed key is not; a blocked subdomain is removed locally", async () => {
    const s = settingsFor(["tavily", "brave"], { tavily: tavily("/fail500"), brave: brave() });
    const out = await searchWeb(
      searchRequest({ query: "drowned bell", blockedDomains: ["blocked.com"] }),
      s,
      {
        env,
      },
    );
    expect(out.provider).toBe("brave");
    expect(out.notes).toHaveLength(1);
    expect(out.notes[0].provider).toBe("tavily");
    expect(out.notes[0].reason).toMatch(/^HTTP 500: .*Internal error for key \[redacted\]/);
    expect(out.notes[0].reason).not.toContain(KEY);
    expect(out.results.map((r) => r.url)).toEqual([
      "https://news.example.org/bell",
      "https://old.example.org/1999",
      "https://undated.example.org/",
    ]);
    // Brave receives no domain parameters: the filter is local.
    expect(lastRequest("/brave")?.url).not.toContain("blocked");
  });

  it("a provider that does not answer in time falls through to the next", async () => {
    const s = settingsFor(["searxng", "brave"], {
      searxng: { url: server.url("/silent"), timeoutMs: 200 },
      brave: brave(),
    });
    const out = await searchWeb(searchRequest({ query: "drowned bell" }), s, { env });
    expect(out.provider).toBe("brave");
    expect(out.notes).toEqual([{ provider: "searxng", reason: "timeout: no answer within 200 ms" }]);
  });

  it("allowed domains keep only those sites and their subdomains; recency drops dated old results", async () => {
    const s = settingsFor(["brave"], { brave: brave() });
    const allowed = await searchWeb(searchRequest({ query: "bell", allowedDomains: ["example.org"] }), s, {
      env,
    });
    expect(allowed.results.map((r) => r.url)).toEqual([
      "https://news.example.org/bell",
      "https://old.example.org/1999",
      "https://undated.example.org/",
    ]);
    const single = Object.fromEntries(new URL(lastRequest("/brave")?.url ?? "", "http://x").searchParams);
    expect(single.q).toBe("bell site:example.org");
    const recent = await searchWeb(searchRequest({ query: "bell", recencyDays: 3650 }), s, { env });
    expect(recent.results.map((r) => r.url)).not.toContain("https://old.example.org/1999");
    expect(recent.results.map((r) => r.url)).toContain("https://undated.example.org/");
  });

  it("when all fail, the error lists each provider's reason and where to configure", async () => {
    const s = settingsFor(["searxng", "brave", "tavily"], {
      searxng: { url: server.url("/nowhere") },
      brave: brave("/silent", { timeoutMs: 150 }),
      tavily: tavily("/tavily", { apiKeyEnv: "TEST_MISSING_KEY" }),
    });
    const before = server.requests.filter((r) => r.url.startsWith("/tavily")).length;
    const err = await failure(searchWeb(searchRequest({ query: "bell" }), s, { env }));
    expect(err.code).toBe("io_error");
    expect(err.message).toContain("configure web.search in the workspace .nbook/config.json");
    expect(err.message).toContain("- searxng: HTTP 404");
    expect(err.message).toContain("- brave: timeout: no answer within 150 ms");
    expect(err.message).toContain("- tavily: no key: TEST_MISSING_KEY is not set");
    // A provider without its key is not asked at all.
    expect(server.requests.filter((r) => r.url.startsWith("/tavily")).length).toBe(before);
  });

  it("with nothing configured it is a config error naming each provider", async () => {
    const err = await failure(
      searchWeb(searchRequest({ query: "bell" }), settingsFor([], { tavily: { enabled: false } }), {
        env: {},
      }),
    );
    expect(err.code).toBe("config_error");
    expect(err.message).toContain("- searxng: not configured (set web.search.providers.searxng.url)");
    expect(err.message).toContain("- brave: no key: BRAVE_API_KEY is not set");
    expect(err.message).toContain("- tavily: disabled (web.search.providers.tavily.enabled)");
  });

  it("a provider answering something else than its format falls through with the reason", async () => {
    const s = settingsFor(["tavily", "brave"], { tavily: tavily("/notjson"), brave: brave() });
    const out = await searchWeb(searchRequest({ query: "bell" }), s, { env });
    expect(out.notes).toEqual([{ provider: "tavily", reason: "the answer is not JSON" }]);
  });
});

describe("the web_search tool", () => {
  it("reads the workspace config, answers numbered Markdown links and structured details", async () => {
    const bed = makeTestBed();
    try {
      writeFileSync(
        join(bed.ws.nbookDir, "config.json"),
        JSON.stringify({
          web: { search: { order: ["searxng"], providers: { searxng: { url: server.url("/searxng") } } } },
        }),
      );
      const r = await bed.call("web_search", { query: "drowned bell", max_results: 1 }, { mode: "discuss" });
      if (!r.ok) throw new Error(r.error.message);
      expect(r.text).toContain('Web search via searxng for "drowned bell":');
      expect(r.text).toContain("1. [The Drowned Bell](https://www.example.com/bells)");
      expect(r.text).toContain("   Published: 2025-05-01T00:00:00");
      expect(r.text).toContain("   A bell under the sea.");
      expect(r.text).not.toContain("2. ");
      expect(r.details).toMatchObject({
        query: "drowned bell",
        provider: "searxng",
        results: [{ score: 3 }],
      });
    } finally {
      bed.cleanup();
    }
  });

  it("refuses a provider choice and out-of-range input (strict schema)", async () => {
    const bed = makeTestBed();
    try {
      const r = await bed.call("web_search", { query: "bell", provider: "brave" });
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error.code).toBe("invalid_input");
      expect(r.error.fields).toEqual([{ pointer: "/provider", message: "unknown field" }]);
      const short = await bed.call("web_search", { query: "b", max_results: 11 });
      expect(short.ok ? [] : short.error.fields?.map((f) => f.pointer)).toEqual(["/query", "/max_results"]);
    } finally {
      bed.cleanup();
    }
  });
});
