import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateText } from "ai";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { NbError } from "../../src/core/errors.js";
import { apiKeyEnvNames, loadModelsConfig, resolveSessionModel } from "../../src/models/index.js";
import { type FixtureServer, respond, startFixtureServer } from "../web/fixture-server.js";

// The keys NeuroBook sends to its search providers: a project's model provider must not get them.
const SEARCH_KEYS = {
  BRAVE_API_KEY: "brave-key-0d5b2f9c41e7",
  TAVILY_API_KEY: "tavily-key-7a3e1c90b2d4",
  NB_SEARX_PROXY_API_KEY: "searx-key-5c8e2a71f0b3",
};

let server: FixtureServer;
beforeAll(async () => {
  server = await startFixtureServer({
    "/v1/chat/completions": respond(500, { "content-type": "application/json" }, '{"error":"no"}'),
  });
});
afterAll(() => server.close());

let ws: string;
let project: string;
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), "nb-key-binding-"));
  project = join(ws, "novel");
  mkdirSync(join(ws, ".nbook"));
  mkdirSync(join(project, ".nbook"), { recursive: true });
  writeFileSync(
    join(ws, ".nbook", "config.json"),
    JSON.stringify({
      web: {
        search: {
          providers: { searxng: { url: "https://searx.example.org", apiKeyEnv: "NB_SEARX_PROXY_API_KEY" } },
        },
      },
    }),
  );
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

const projectProvider = (apiKeyEnv: string) =>
  writeFileSync(
    join(project, ".nbook", "config.json"),
    JSON.stringify({
      providers: {
        mine: { kind: "openai-compatible", baseURL: server.url("/v1"), apiKeyEnv },
      },
      defaultModel: "mine/m",
    }),
  );

/** What a run on the project's default model does: resolve it, then ask it once. */
async function runProjectModel(): Promise<unknown> {
  try {
    const { model } = resolveSessionModel({
      workspaceRoot: ws,
      projectRoot: project,
      profileKey: "writer",
      env: SEARCH_KEYS,
    });
    await generateText({ model, prompt: "hello", maxRetries: 0 }).catch(() => undefined);
    return null;
  } catch (e) {
    return e;
  }
}

describe("a project's model provider and the workspace's search keys", () => {
  for (const name of Object.keys(SEARCH_KEYS)) {
    it(`may not name ${name}: refused with a pointer, and the key never reaches the project's URL`, async () => {
      projectProvider(name);
      const before = server.requests.length;
      const e = await runProjectModel();
      expect(e).toBeInstanceOf(NbError);
      expect((e as NbError).code).toBe("config_error");
      expect((e as NbError).fields?.map((f) => f.pointer)).toEqual(["/providers/mine/apiKeyEnv"]);
      expect((e as NbError).message).toContain(`${name} is the key of web_search`);
      const received = server.requests.slice(before);
      for (const key of Object.values(SEARCH_KEYS)) {
        expect(received.some((r) => JSON.stringify(r.headers).includes(key))).toBe(false);
      }
      expect(received).toEqual([]);
    });
  }

  it("a key variable of its own still reaches its own URL (the check is not a blanket refusal)", async () => {
    projectProvider("NB_PROJECT_OWN_API_KEY");
    const { model } = resolveSessionModel({
      workspaceRoot: ws,
      projectRoot: project,
      profileKey: "writer",
      env: { NB_PROJECT_OWN_API_KEY: "own-key-3f9a0b" },
    });
    const before = server.requests.length;
    await generateText({ model, prompt: "hello", maxRetries: 0 }).catch(() => undefined);
    expect(server.requests.slice(before).map((r) => r.headers.authorization)).toEqual([
      "Bearer own-key-3f9a0b",
    ]);
  });

  it("the search keys are among the workspace's key variables (hidden from bash output)", () => {
    const names = apiKeyEnvNames({ workspaceRoot: ws });
    for (const name of Object.keys(SEARCH_KEYS)) expect(names.has(name), name).toBe(true);
    expect(() => loadModelsConfig({ workspaceRoot: ws })).not.toThrow();
  });
});
