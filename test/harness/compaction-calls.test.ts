import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Harness } from "../../src/harness/loop.js";
import { SessionStore } from "../../src/harness/store/index.js";
import { parseModelsConfig, resolveModel } from "../../src/models/index.js";
import { ProfileCatalog } from "../../src/profiles/catalog.js";
import { toolPorts } from "../../src/runtime/ports.js";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { Workspace } from "../../src/workspace/workspace.js";

interface Body {
  stream?: boolean;
  messages: { role: string; content?: string | null }[];
}

// A loopback OpenAI-compatible server: streamed requests are turns, the others the summariser's.
const seen: Body[] = [];
let server: Server;
let baseURL: string;

function streamed(): string {
  const base = { id: "c1", object: "chat.completion.chunk", created: 0, model: "stub" };
  const usage = { prompt_tokens: 100, completion_tokens: 7, total_tokens: 107 };
  return [
    {
      ...base,
      choices: [{ index: 0, delta: { role: "assistant", content: "Written." }, finish_reason: null }],
    },
    { ...base, usage, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
  ]
    .map((c) => `data: ${JSON.stringify(c)}\n\n`)
    .join("");
}

const SUMMARY = {
  id: "s1",
  object: "chat.completion",
  created: 0,
  model: "stub",
  choices: [
    { index: 0, message: { role: "assistant", content: "Mara reached the harbour." }, finish_reason: "stop" },
  ],
  usage: {
    prompt_tokens: 300,
    completion_tokens: 20,
    total_tokens: 320,
    prompt_tokens_details: { cached_tokens: 60 },
  },
};

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => {
      raw += d;
    });
    req.on("end", () => {
      const body = JSON.parse(raw) as Body;
      seen.push(body);
      if (body.stream) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(`${streamed()}data: [DONE]\n\n`);
      } else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(SUMMARY));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

let dir: string;
let workspace: Workspace;
let store: SessionStore;
let harness: Harness;

function setup(config: unknown): void {
  dir = mkdtempSync(join(tmpdir(), "nbook-compaction-calls-"));
  workspace = Workspace.init(dir);
  workspace.createProject("novel");
  mkdirSync(join(dir, ".nbook"), { recursive: true });
  writeFileSync(join(dir, ".nbook", "config.json"), JSON.stringify(config));
  store = SessionStore.forWorkspace(workspace);
  const registry = createToolRegistry();
  const models = parseModelsConfig(
    { providers: { local: { kind: "openai-compatible", baseURL, models: { stub: {} } } } },
    "c",
  );
  const resolved = resolveModel("local/stub", models, {});
  harness = new Harness({
    ports: toolPorts(),
    workspace,
    store,
    registry,
    catalog: new ProfileCatalog(registry, workspace),
    resolveModel: () => resolved,
    settings: { maxRetries: 0 },
  });
}

afterEach(() => {
  store.close();
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("compaction's summariser requests are model calls", () => {
  it("are stored with their manifest, the provider's usage and a cost, and counted in the totals", async () => {
    setup({ prices: { "local/stub": { currency: "USD", input: 1, output: 2, cacheRead: 0.5 } } });
    const session = harness.createSession({ profileKey: "leader.default", project: "novel" });
    await harness.invoke(session.id, { mode: "prompt", message: "Mara sails at dawn." });
    await harness.invoke(session.id, { mode: "prompt", message: "And then?" });
    const usageEvents: number[] = [];
    harness.bus.on((e) => {
      if (e.type === "usage") usageEvents.push(e.call);
    });
    const entry = await harness.compact(session.id, "the harbour");
    expect(entry?.kind).toBe("compaction");

    const calls = store.calls(session.id);
    expect(calls.map((c) => c.purpose)).toEqual(["turn", "turn", "compaction"]);
    const c = calls[2]!;
    expect(usageEvents).toEqual([c.seq]);
    expect(c.reported).toBe(true);
    expect(c.usage).toEqual({ inputTokens: 300, outputTokens: 20, cacheReadTokens: 60, cacheWriteTokens: 0 });
    expect(c.cost?.currency).toBe("USD");
    expect(c.cost?.amount).toBeGreaterThan(0);

    // The manifest adds up to the request the server received: the system prompt and the transcript.
    const sent = seen.at(-1)!;
    expect(sent.stream).toBeFalsy();
    const system = sent.messages.find((m) => m.role === "system")!.content as string;
    const prompt = sent.messages.find((m) => m.role === "user")!.content as string;
    expect(system).toContain("the harbour");
    const chars = (kind: (k: string) => boolean) =>
      c.manifest.sections.filter((s) => kind(s.kind)).reduce((n, s) => n + s.chars, 0);
    expect(chars((k) => k !== "tools" && k !== "history")).toBe(system.length);
    expect(chars((k) => k === "history")).toBe(prompt.length);
    expect(c.manifest.sections.find((s) => s.kind === "tools")?.items).toBe(0);

    const total = store.sessionUsage(session.id);
    expect(total.calls).toBe(3);
    expect(total.inputTokens).toBe(100 + 100 + 300);
    expect(total.cacheReadTokens).toBe(60);
    expect(total.usd).toBeCloseTo(
      calls.reduce((n, x) => n + (x.cost?.amount ?? 0), 0),
      12,
    );
    const day = calls[0]!.day;
    expect(store.projectDayUsage("novel", day).calls).toBe(3);
  });

  it("is not started past a used-up budget: the compaction fails with the budget's reason and nothing is sent", async () => {
    setup({ budgets: { session: { tokens: 150 } } });
    const session = harness.createSession({ profileKey: "leader.default", project: "novel" });
    await harness.invoke(session.id, { mode: "prompt", message: "Mara sails at dawn." });
    await harness.invoke(session.id, { mode: "prompt", message: "And then?" });
    const sentBefore = seen.length;
    const errors: string[] = [];
    harness.bus.on((e) => {
      if (e.type === "error") errors.push(`${e.error.code}: ${e.error.message}`);
    });
    expect(await harness.compact(session.id)).toBeNull();
    expect(seen.length).toBe(sentBefore);
    expect(errors).toEqual([expect.stringMatching(/^limit_exceeded: .*budgets\.session\.tokens/)]);
    expect(store.calls(session.id).map((c) => c.purpose)).toEqual(["turn", "turn"]);
  });
});
