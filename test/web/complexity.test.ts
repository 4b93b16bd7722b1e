import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ErrorInfo } from "../../src/core/errors.js";
import { FETCH_DEFAULTS, type FetchSettings } from "../../src/web/config.js";
import { MAX_DEPTH } from "../../src/web/fetch/complexity.js";
import { extractHtml } from "../../src/web/fetch/extract.js";
import { closeExtraction } from "../../src/web/fetch/extraction.js";
import { fetchPage } from "../../src/web/fetch/index.js";
import { type FixtureServer, respond, startFixtureServer } from "./fixture-server.js";

const HTML = { "content-type": "text/html; charset=utf-8" };
const PARAGRAPH = `<p>${"The tide came in twice a day and the town listened for the bell under the water. ".repeat(5)}</p>`;
const article = (paragraphs: number) =>
  `<html><head><title>Bell</title></head><body><article><h1>The Drowned Bell</h1>${PARAGRAPH.repeat(paragraphs)}</article></body></html>`;

// The pages of the report: ~1.1 MB of 100,000 nested <div>s, ~1.3 MB of 100,000 nested <b><i> pairs.
const NESTED_DIVS = `<html><body>${"<div>".repeat(100_000)}deep${"</div>".repeat(100_000)}</body></html>`;
const NESTED_BI = `<html><body>${"<b><i>x".repeat(100_000)}</body></html>`;
// 200,000 flat elements: shallow, but more than extraction gets through in reasonable time.
const WIDE = `<html><body>${"<p>word <b>b</b></p>".repeat(100_000)}</body></html>`;

const settings = (more: Partial<FetchSettings> = {}): FetchSettings => ({
  ...FETCH_DEFAULTS,
  allowPrivate: ["127.0.0.1"],
  cacheTtlSeconds: 0,
  ...more,
});

async function failure(p: Promise<unknown>): Promise<ErrorInfo> {
  try {
    await p;
  } catch (e) {
    return (e as { toInfo(): ErrorInfo }).toInfo();
  }
  throw new Error("expected a failure");
}

/**
 * Run `work` while a 20 ms timer ticks, and return its outcome with the longest gap between two
 * ticks: a main thread busy extracting a page would hold the timer back for the whole time.
 */
async function whileTicking<T>(work: () => Promise<T>): Promise<{ value: T; longestGapMs: number }> {
  let last = performance.now();
  let longestGapMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longestGapMs = Math.max(longestGapMs, now - last);
    last = now;
  }, 20);
  try {
    const value = await work();
    longestGapMs = Math.max(longestGapMs, performance.now() - last);
    return { value, longestGapMs };
  } finally {
    clearInterval(timer);
  }
}

let server: FixtureServer;
beforeAll(async () => {
  server = await startFixtureServer({
    "/divs": respond(200, HTML, NESTED_DIVS),
    "/bi": respond(200, HTML, NESTED_BI),
    "/wide": respond(200, HTML, WIDE),
    "/article": respond(200, HTML, article(3)),
    "/long-article": respond(200, HTML, article(1500)),
    "/nul-text": respond(200, { "content-type": "text/plain" }, Buffer.alloc(4096)),
    "/nul-html": respond(200, { "content-type": "text/html; charset=utf-8" }, Buffer.alloc(4096)),
    "/utf16": respond(
      200,
      { "content-type": "text/plain; charset=utf-16le" },
      Buffer.from("\ufeffbell words", "utf16le"),
    ),
  });
});
afterAll(async () => {
  await server.close();
  await closeExtraction();
});

describe("a page too complex to extract", () => {
  for (const [path, what] of [
    ["/divs", "100,000 nested <div>s"],
    ["/bi", "100,000 nested <b><i> pairs"],
  ] as const) {
    it(`(${what}) is refused promptly with a clear error, and the process keeps answering meanwhile`, async () => {
      const started = performance.now();
      const { value: err, longestGapMs } = await whileTicking(() =>
        failure(fetchPage(server.url(path), settings())),
      );
      expect(err).toMatchObject({
        code: "limit_exceeded",
        message: `web_fetch cannot read ${server.url(path)}: its elements nest more than ${MAX_DEPTH} deep, too complex to extract its text`,
      });
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(longestGapMs).toBeLessThan(2_000);
    });
  }

  it("(200,000 elements) is refused for its size", async () => {
    const err = await failure(fetchPage(server.url("/wide"), settings()));
    expect(err.code).toBe("limit_exceeded");
    expect(err.message).toContain("it has more than 100,000 elements");
  });

  it("the refusal comes before parsing, also where extraction is called directly", () => {
    expect(() => extractHtml(NESTED_DIVS, "https://example.com/")).toThrow(/nest more than 256 deep/);
  });

  it("nesting up to the limit still reads", () => {
    const depth = MAX_DEPTH - 10;
    const page = `<html><body>${"<div>".repeat(depth)}${PARAGRAPH.repeat(5)}${"</div>".repeat(depth)}</body></html>`;
    const r = extractHtml(page, "https://example.com/");
    expect(r.content).toContain("The tide came in twice a day");
  });
});

describe("extraction runs off the main thread", () => {
  it("a long article is extracted while timers keep firing", async () => {
    const started = performance.now();
    const { value, longestGapMs } = await whileTicking(() =>
      fetchPage(server.url("/long-article"), settings()),
    );
    const tookMs = performance.now() - started;
    expect(value.page.method).toBe("readability");
    expect(value.page.content.length).toBeGreaterThan(500_000);
    // On the main thread the timer would wait for the whole extraction, most of the call.
    expect(longestGapMs).toBeLessThan(tookMs / 2);
  });

  it("an extraction past its deadline is stopped with a timeout, and the next page reads", async () => {
    const { value: err, longestGapMs } = await whileTicking(() =>
      failure(fetchPage(server.url("/long-article"), settings(), { extractDeadlineMs: 50 })),
    );
    expect(err).toMatchObject({
      code: "timeout",
      message: `web_fetch gave up on ${server.url("/long-article")}: extracting its text took longer than 0.05 s (the page is too complex)`,
    });
    expect(longestGapMs).toBeLessThan(2_000);
    const { page } = await fetchPage(server.url("/article"), settings());
    expect(page.content).toContain("The tide came in twice a day");
  });

  it("stops when the caller aborts during extraction", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const err = await failure(
      fetchPage(server.url("/long-article"), settings(), { signal: controller.signal }),
    );
    expect(err.code).toBe("aborted");
  });
});

describe("a body of NUL bytes", () => {
  it("is binary, whatever text type it declares", async () => {
    for (const path of ["/nul-text", "/nul-html"]) {
      const err = await failure(fetchPage(server.url(path), settings()));
      expect(err.code, path).toBe("unsupported");
      expect(err.message, path).toContain(`${server.url(path)} is binary`);
    }
  });

  it("but UTF-16 text, whose NULs are half its characters, still reads", async () => {
    const { page } = await fetchPage(server.url("/utf16"), settings());
    expect(page.content).toBe("bell words");
  });
});
