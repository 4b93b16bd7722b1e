import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NbError } from "../../src/core/errors.js";
import { HttpSource } from "../../src/research/http-source.js";
import { bookJson, closedPort, type Fixture, json, snapshotJson, startFixture } from "./fixture.js";

let fx: Fixture;
let source: HttpSource;

/** The NovelScope routes: one board and one book; anything else 404 with a message, as the service answers. */
function service(): Fixture["handle"] {
  return (req, res) => {
    if (req.url === "/v1/rankings/qidian/yuepiao") {
      json(res, 200, snapshotJson("qidian", "yuepiao", "2025-06-08T08:00:00.000Z", [["101", "潮钟守夜人"]]));
    } else if (req.url === "/v1/books/qidian/101") {
      json(res, 200, bookJson("qidian", "101", "2025-06-08T09:00:00.000Z", { wordCount: null }));
    } else json(res, 404, { statusCode: 404, message: "no snapshot yet", error: "Not Found" });
  };
}

beforeAll(async () => {
  fx = await startFixture(service());
  source = new HttpSource({ baseUrl: fx.baseUrl, timeoutMs: 2000 });
});
afterAll(() => fx.close());

async function failure(p: Promise<unknown>): Promise<NbError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(NbError);
  return e as NbError;
}

describe("the HTTP research source", () => {
  it("reads a ranking snapshot and a book detail in the service's shape", async () => {
    fx.handle = service();
    const s = await source.rankings("qidian", "yuepiao");
    expect(s).toMatchObject({
      platform: "qidian",
      rankTypeKey: "yuepiao",
      fetchedAt: "2025-06-08T08:00:00.000Z",
    });
    expect(s.items[0]).toMatchObject({
      rank: 1,
      externalBookId: "101",
      title: "潮钟守夜人",
      bookId: "uuid-101",
    });
    expect(s.items[0].metrics.wordCount).toBe(1_234_567);
    const b = await source.book("qidian", "101");
    expect(b).toMatchObject({ title: "Book 101", genres: ["奇幻"], stale: false, wordCount: null });
    expect(source.label).toBe(`the research service at ${fx.baseUrl}`);
  });

  it("encodes each path segment, so a board key cannot add a path (0/1 is sent as 0%2F1)", async () => {
    fx.handle = service();
    fx.paths.length = 0;
    await failure(source.rankings("fanqie", "0/1"));
    await failure(source.book("fanqie", "../admin"));
    expect(fx.paths).toEqual(["/v1/rankings/fanqie/0%2F1", "/v1/books/fanqie/..%2Fadmin"]);
  });

  it("maps 404 to not_found, 400 to invalid_input, 502 and others to io_error, each with the service's message", async () => {
    fx.handle = service();
    const missing = await failure(source.rankings("qidian", "nope"));
    expect(missing.code).toBe("not_found");
    expect(missing.message).toBe(
      `No board qidian/nope at the research service ${fx.baseUrl} (HTTP 404: no snapshot yet)`,
    );
    fx.handle = (_req, res) => json(res, 400, { message: ["bookId must be numeric"] });
    const bad = await failure(source.book("qidian", "abc"));
    expect(bad.code).toBe("invalid_input");
    expect(bad.message).toContain("HTTP 400: bookId must be numeric");
    fx.handle = (_req, res) => json(res, 502, { message: "qidian answered 403" });
    const upstream = await failure(source.rankings("qidian", "yuepiao"));
    expect(upstream.code).toBe("io_error");
    expect(upstream.message).toContain("could not collect board qidian/yuepiao from the platform");
    expect(upstream.message).toContain("HTTP 502: qidian answered 403");
    fx.handle = (_req, res) => {
      res.writeHead(500, { "content-type": "text/html" });
      res.end("<html><body>Internal error</body></html>");
    };
    const crashed = await failure(source.rankings("qidian", "yuepiao"));
    expect(crashed.code).toBe("io_error");
    expect(crashed.message).toBe(
      `The research service ${fx.baseUrl} failed for board qidian/yuepiao (HTTP 500)`,
    );
  });

  it("refuses an answer that is not JSON, a redirect, or data in another shape", async () => {
    fx.handle = (_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<!doctype html><title>NeuroBook</title>");
    };
    const html = await failure(source.rankings("qidian", "yuepiao"));
    expect(html.code).toBe("io_error");
    expect(html.message).toContain("with text/html, not JSON: is research.http.baseUrl");
    fx.handle = (_req, res) => {
      res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data" });
      res.end();
    };
    fx.paths.length = 0;
    const moved = await failure(source.rankings("qidian", "yuepiao"));
    expect(moved.message).toContain(
      "answered with a redirect (HTTP 302 to http://169.254.169.254/latest/meta-data)",
    );
    expect(fx.paths).toHaveLength(1);
    fx.handle = (_req, res) =>
      json(res, 200, {
        ...snapshotJson("qidian", "yuepiao", "2025-06-08T08:00:00.000Z", []),
        items: [{ rank: "1" }],
      });
    const shape = await failure(source.rankings("qidian", "yuepiao"));
    expect(shape.code).toBe("io_error");
    expect(shape.message).toContain("is not in the expected shape");
    expect(shape.message).toContain("/items/0/rank");
    fx.handle = (_req, res) =>
      json(res, 200, snapshotJson("qidian", "hotsales", "2025-06-08T08:00:00.000Z", []));
    const other = await failure(source.rankings("qidian", "yuepiao"));
    expect(other.message).toContain("answers for qidian/hotsales, not for qidian/yuepiao");
  });

  it("stops reading an answer past 8 MB", async () => {
    fx.handle = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(`{"pad":"${"x".repeat(9 * 1024 * 1024)}"}`);
    };
    const big = await failure(source.rankings("qidian", "yuepiao"));
    expect(big.code).toBe("limit_exceeded");
    expect(big.message).toContain(fx.baseUrl);
  });

  it("names the base URL when the service is unreachable, with no stack trace", async () => {
    const base = await closedPort();
    const down = new HttpSource({ baseUrl: base });
    const e = await failure(down.rankings("qidian", "yuepiao"));
    expect(e.code).toBe("io_error");
    expect(e.message).toBe(
      `Cannot reach the research service at ${base} (connection refused). Is it running? Its address is research.http.baseUrl in .nbook/config.json (docs/research.md).`,
    );
    expect(e.message).not.toMatch(/\n\s+at /);
  });

  it("times out a service that does not answer, naming the URL and the setting; an abort is an abort", async () => {
    fx.handle = () => {};
    const slow = new HttpSource({ baseUrl: fx.baseUrl, timeoutMs: 150 });
    const e = await failure(slow.rankings("qidian", "yuepiao"));
    expect(e.code).toBe("timeout");
    expect(e.message).toBe(
      `The research service at ${fx.baseUrl} did not answer within 0.15 s (research.http.timeoutMs)`,
    );
    const ac = new AbortController();
    const pending = source.book("qidian", "101", ac.signal);
    ac.abort();
    expect((await failure(pending)).code).toBe("aborted");
  });
});
