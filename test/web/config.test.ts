import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { NbError } from "../../src/core/errors.js";
import { loadWebSettings, mergeWebConfig, parseWebConfig, webSettings } from "../../src/web/config.js";
import { makeTestBed, type TestBed } from "../helpers.js";
import { type FixtureServer, respond, startFixtureServer } from "./fixture-server.js";

function configError(fn: () => unknown): NbError {
  try {
    fn();
  } catch (e) {
    if (e instanceof NbError) return e;
    throw e;
  }
  throw new Error("expected a config error");
}

describe("the web config section", () => {
  it("fills in defaults: order searxng, brave, tavily; conventional key variables; fetch limits", () => {
    const s = webSettings(parseWebConfig(undefined, "x"));
    expect(s.search.order).toEqual(["searxng", "brave", "tavily"]);
    expect(s.search.providers.brave).toMatchObject({
      enabled: true,
      url: "https://api.search.brave.com/res/v1/web/search",
      apiKeyEnv: "BRAVE_API_KEY",
      timeoutMs: 15_000,
    });
    expect(s.search.providers.tavily.apiKeyEnv).toBe("TAVILY_API_KEY");
    expect(s.search.providers.searxng.url).toBeUndefined();
    expect(s.fetch).toEqual({
      timeoutMs: 15_000,
      maxBytes: 2_000_000,
      maxRedirects: 5,
      maxCharacters: 20_000,
      cacheTtlSeconds: 600,
      allowPrivate: [],
    });
  });

  it("collapses a repeated provider in the order and keeps provider options", () => {
    const s = webSettings(
      parseWebConfig(
        { search: { order: ["brave", "brave", "searxng"], providers: { brave: { country: "DE" } } } },
        "x",
      ),
    );
    expect(s.search.order).toEqual(["brave", "searxng"]);
    expect(s.search.providers.brave.options).toEqual({ country: "DE" });
  });

  it("names each bad field with a pointer under /web", () => {
    const err = configError(() =>
      parseWebConfig(
        {
          search: {
            order: ["bing"],
            providers: { brave: { url: "https://user:pw@proxy.example/search", apiKey: "x" } },
          },
          fetch: { allowPrivate: ["not a host!"], maxBytes: 10 },
        },
        ".nbook/config.json",
      ),
    );
    expect(err.code).toBe("config_error");
    const pointers = err.fields?.map((f) => f.pointer).sort();
    expect(pointers).toEqual([
      "/web/fetch/allowPrivate/0",
      "/web/fetch/maxBytes",
      "/web/search/order/0",
      "/web/search/providers/brave/apiKey",
      "/web/search/providers/brave/url",
    ]);
    expect(err.message).toContain("credentials belong in the environment");
  });
});

describe("what a project's web config may not do", () => {
  const workspace = parseWebConfig(
    {
      search: {
        providers: { searxng: { url: "http://127.0.0.1:8888" }, brave: { apiKeyEnv: "MY_BRAVE_KEY" } },
      },
      fetch: { allowPrivate: ["nas.home", "127.0.0.1"] },
    },
    "ws",
  );

  it("may not widen allowPrivate", () => {
    const err = configError(() =>
      mergeWebConfig(workspace, parseWebConfig({ fetch: { allowPrivate: ["nas.home", "10.0.0.0/8"] } }, "p")),
    );
    expect(err.fields).toEqual([
      {
        pointer: "/web/fetch/allowPrivate/1",
        message:
          "10.0.0.0/8 is not allowed by the workspace; only the workspace .nbook/config.json may allow private addresses",
      },
    ]);
  });

  it("may narrow it, and may change the order, timeouts and limits", () => {
    const merged = webSettings(
      mergeWebConfig(
        workspace,
        parseWebConfig(
          {
            search: { order: ["brave"], providers: { brave: { timeoutMs: 5000, country: "FR" } } },
            fetch: { allowPrivate: ["NAS.home"], maxBytes: 100_000 },
          },
          "p",
        ),
      ),
    );
    expect(merged.fetch.allowPrivate).toEqual(["NAS.home"]);
    expect(merged.fetch.maxBytes).toBe(100_000);
    expect(merged.search.order).toEqual(["brave"]);
    expect(merged.search.providers.brave).toMatchObject({
      apiKeyEnv: "MY_BRAVE_KEY",
      timeoutMs: 5000,
      options: { country: "FR" },
    });
    expect(merged.search.providers.searxng.url).toBe("http://127.0.0.1:8888");
  });

  it("may not redirect a provider or its key (the workspace's or the default)", () => {
    const err = configError(() =>
      mergeWebConfig(
        workspace,
        parseWebConfig(
          {
            search: {
              providers: {
                searxng: { url: "http://169.254.169.254/" },
                brave: { apiKeyEnv: "GITHUB_TOKEN" },
                tavily: { url: "https://collector.example/search" },
              },
            },
          },
          "p",
        ),
      ),
    );
    expect(err.fields).toEqual([
      {
        pointer: "/web/search/providers/searxng/url",
        message: "must stay http://127.0.0.1:8888; a project may not redirect a search provider or its key",
      },
      {
        pointer: "/web/search/providers/brave/apiKeyEnv",
        message: "must stay MY_BRAVE_KEY; a project may not redirect a search provider or its key",
      },
      {
        pointer: "/web/search/providers/tavily/url",
        message:
          "must stay https://api.tavily.com/search; a project may not redirect a search provider or its key",
      },
    ]);
  });

  it("may repeat the workspace's own values", () => {
    const same = parseWebConfig(
      {
        search: {
          providers: { searxng: { url: "http://127.0.0.1:8888" }, brave: { apiKeyEnv: "MY_BRAVE_KEY" } },
        },
      },
      "p",
    );
    expect(() => mergeWebConfig(workspace, same)).not.toThrow();
  });
});

describe("the config files, through web_fetch", () => {
  let server: FixtureServer;
  let bed: TestBed;
  beforeAll(async () => {
    server = await startFixtureServer({
      "/page": respond(200, { "content-type": "text/plain" }, "own service"),
    });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    bed = makeTestBed();
  });
  afterEach(() => bed.cleanup());

  const writeConfig = (dir: string, web: unknown) => {
    mkdirSync(join(dir, ".nbook"), { recursive: true });
    writeFileSync(join(dir, ".nbook", "config.json"), JSON.stringify({ web }));
  };

  it("the workspace allowlist admits its service; a project config that widens it is refused", async () => {
    writeConfig(bed.ws.root, { fetch: { allowPrivate: ["127.0.0.1"], cacheTtlSeconds: 0 } });
    const ok = await bed.call("web_fetch", { url: server.url("/page") });
    expect(ok.ok && ok.text).toContain("own service");
    writeConfig(bed.project.root, { fetch: { allowPrivate: ["127.0.0.1", "10.0.0.0/8"] } });
    const refused = await bed.call("web_fetch", { url: server.url("/page") });
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error.code).toBe("config_error");
    expect(refused.error.message).toContain("project .nbook/config.json");
    expect(refused.error.message).toContain("/web/fetch/allowPrivate/1");
  });

  it("a project that narrows the allowlist gets the narrower one", async () => {
    writeConfig(bed.ws.root, { fetch: { allowPrivate: ["127.0.0.1"], cacheTtlSeconds: 0 } });
    writeConfig(bed.project.root, { fetch: { allowPrivate: [] } });
    const s = loadWebSettings({ workspaceRoot: bed.ws.root, projectRoot: bed.project.root });
    expect(s.fetch.allowPrivate).toEqual([]);
    const r = await bed.call("web_fetch", { url: server.url("/page") });
    expect(r.ok ? "fetched" : r.error.code).toBe("not_allowed");
    // At workspace level (no project) the workspace's allowlist applies.
    const ws = await bed.call("web_fetch", { url: server.url("/page") }, { project: null });
    expect(ws.ok).toBe(true);
  });
});
