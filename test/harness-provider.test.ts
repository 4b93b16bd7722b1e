import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentCollaboration } from "../src/collab/plugin.js";
import { Harness } from "../src/harness/loop.js";
import { SessionStore } from "../src/harness/store/index.js";
import { parseModelsConfig, resolveModel } from "../src/models/index.js";
import { ProfileCatalog } from "../src/profiles/catalog.js";
import { toolPorts } from "../src/runtime/ports.js";
import { createToolRegistry } from "../src/tools/builtin.js";
import { onDemandSets } from "../src/tools/on-demand.js";
import { Workspace } from "../src/workspace/workspace.js";

interface ChatBody {
  messages: { role: string; content?: unknown; tool_call_id?: string }[];
  tools?: { type: string; function: { name: string } }[];
  tool_choice?: unknown;
  max_tokens?: number;
}

const requests: ChatBody[] = [];
let server: Server;
let baseURL: string;

function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  const usage = finish ? { usage: { prompt_tokens: 30, completion_tokens: 4, total_tokens: 34 } } : {};
  const body = { id: "c1", object: "chat.completion.chunk", created: 0, model: "stub", ...usage };
  return `data: ${JSON.stringify({ ...body, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

// First request: 503 asking for a 1 ms wait; then a `read` call; once the tool result is in, a text answer.
beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => {
      raw += d;
    });
    req.on("end", () => {
      requests.push(JSON.parse(raw) as ChatBody);
      if (requests.length === 1) {
        res.writeHead(503, { "content-type": "application/json", "retry-after-ms": "1" });
        res.end(JSON.stringify({ error: { message: "overloaded" } }));
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      const last = requests.at(-1)!;
      const parts = last.messages.some((m) => m.role === "tool")
        ? [chunk({ role: "assistant", content: "AGENTS.md " }), chunk({ content: "read." }, "stop")]
        : [
            chunk({
              role: "assistant",
              tool_calls: [
                { index: 0, id: "call_1", type: "function", function: { name: "read", arguments: "" } },
              ],
            }),
            chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":"AGENTS.md"}' } }] }),
            chunk({}, "tool_calls"),
          ];
      for (const p of parts) res.write(p);
      res.end("data: [DONE]\n\n");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("turn loop on a real provider (openai-compatible, loopback stub)", () => {
  it("retries a 503, runs the tool call, and sends system prompt, offered tools, the output cap and tool results", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nbook-harness-provider-"));
    const workspace = Workspace.init(dir);
    workspace.createProject("novel", { sample: true });
    const store = SessionStore.forWorkspace(workspace);
    const registry = createToolRegistry();
    const catalog = new ProfileCatalog(registry, workspace);
    const config = parseModelsConfig(
      {
        providers: {
          local: { kind: "openai-compatible", baseURL, models: { stub: { maxOutputTokens: 321 } } },
        },
      },
      "c",
    );
    const resolved = resolveModel("local/stub", config, {});
    const harness = new Harness({
      collaboration: agentCollaboration(),
      ports: toolPorts(),
      workspace,
      store,
      registry,
      catalog,
      resolveModel: () => resolved,
      settings: { maxRetries: 1 },
    });
    try {
      const s = harness.createSession({ profileKey: "leader.default", project: "novel" });
      const r = await harness.invoke(s.id, { mode: "prompt", message: "Read the instructions" });
      expect(r).toMatchObject({ status: "completed", finalMessage: "AGENTS.md read.", steps: 2 });
      expect(requests).toHaveLength(3);

      const first = requests[1];
      expect(first.messages.map((m) => m.role)).toEqual(["system", "user"]);
      expect(first.messages[1].content).toBe("Read the instructions");
      const offered = first.tools?.map((t) => t.function.name) ?? [];
      // The allowlist less the tools the leader sends on demand (load_tools), in allowlist order.
      const onDemand = new Set(
        Object.values(onDemandSets(catalog.allowlist("leader.default").get("load_tools"))).flat(),
      );
      expect(onDemand.size).toBeGreaterThan(0);
      expect(offered).toEqual(
        [...catalog.allowlist("leader.default").keys()].filter((k) => !onDemand.has(k)),
      );
      expect(first.tool_choice).toBe("auto");
      expect(first.max_tokens).toBe(321);

      const second = requests[2];
      expect(second.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
      const result = second.messages[3];
      expect(result.tool_call_id).toBe("call_1");
      expect(String(result.content)).toContain("Instructions");

      const assistant = store.activePath(s.id).find((e) => e.kind === "assistant");
      expect(assistant?.kind === "assistant" && assistant.data).toMatchObject({
        toolCalls: [{ id: "call_1", key: "read", input: { path: "AGENTS.md" } }],
        usage: { inputTokens: 30, outputTokens: 4 },
      });
    } finally {
      store.close();
      workspace.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// Providers that misbehave: one never answers, one goes silent after a role-only chunk, one after some
// text, one refuses with 429 and echoes the key. Each request is counted by path.
describe("provider timeouts and errors (openai-compatible, loopback stub)", () => {
  const KEY = "sk-stub-6f1d2c9a8b7e";
  const hits: Record<string, number> = {};
  let stub: Server;
  let root: string;

  beforeAll(async () => {
    stub = createServer((req, res) => {
      const path = (req.url ?? "").split("/")[1];
      hits[path] = (hits[path] ?? 0) + 1;
      req.resume();
      req.on("end", () => {
        if (path === "hang") return;
        if (path === "limited") {
          res.writeHead(429, { "content-type": "application/json", "retry-after-ms": "1" });
          res.end(JSON.stringify({ error: { message: `rate limited for key ${KEY}` } }));
          return;
        }
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(chunk(path === "stall" ? { role: "assistant" } : { role: "assistant", content: "Once" }));
      });
    });
    await new Promise<void>((r) => stub.listen(0, "127.0.0.1", r));
    root = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
  });

  afterAll(() => {
    stub.closeAllConnections();
    return new Promise<void>((r) => stub.close(() => r()));
  });

  async function runOn(path: string) {
    const dir = mkdtempSync(join(tmpdir(), "nbook-harness-timeout-"));
    const workspace = Workspace.init(dir);
    workspace.createProject("novel");
    const store = SessionStore.forWorkspace(workspace);
    const registry = createToolRegistry();
    const config = parseModelsConfig(
      {
        providers: {
          local: {
            kind: "openai-compatible",
            baseURL: `${root}/${path}/v1`,
            apiKeyEnv: "STUB_API_KEY",
            timeouts: { firstChunkMs: 200, idleMs: 200 },
          },
        },
      },
      "c",
    );
    const resolved = resolveModel("local/stub", config, { STUB_API_KEY: KEY });
    const harness = new Harness({
      collaboration: agentCollaboration(),
      ports: toolPorts(),
      workspace,
      store,
      registry,
      catalog: new ProfileCatalog(registry, workspace),
      resolveModel: () => resolved,
      settings: { maxRetries: 1 },
    });
    try {
      const s = harness.createSession({ profileKey: "leader.default", project: "novel" });
      const result = await harness.invoke(s.id, { mode: "prompt", message: "Begin" });
      const recorded = store.activePath(s.id).filter((e) => e.kind === "assistant");
      return { result, recorded };
    } finally {
      store.close();
      workspace.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it("a provider that never answers ends, after the first-chunk timeout and a retry, with a timeout error", async () => {
    const { result } = await runOn("hang");
    expect(result.status).toBe("error");
    expect(result.error).toEqual({
      code: "timeout",
      message: `Model call failed after 2 attempts: openai-compatible (${root.slice(7)}): timeout: no answer within 0.2 s (providers.local.timeouts.firstChunkMs)`,
    });
    expect(hits.hang).toBe(2);
  });

  it("a stream that stalls before any text is retried, then ends with a timeout error", async () => {
    const { result, recorded } = await runOn("stall");
    expect(result.status).toBe("error");
    expect(result.error?.code).toBe("timeout");
    expect(result.error?.message).toContain("after 2 attempts");
    expect(result.error?.message).toContain(
      "timeout: the stream stalled: no data for 0.2 s (providers.local.timeouts.idleMs)",
    );
    expect(hits.stall).toBe(2);
    expect(recorded).toEqual([]);
  });

  it("a stream that stalls after some text ends with a timeout error and keeps the text, unretried", async () => {
    const { result, recorded } = await runOn("text");
    expect(result).toMatchObject({ status: "error", finalMessage: "Once", error: { code: "timeout" } });
    expect(result.error?.message).toContain("not retried: part of the answer had already arrived");
    expect(hits.text).toBe(1);
    expect(recorded.map((e) => e.kind === "assistant" && e.data)).toEqual([
      expect.objectContaining({ text: "Once", status: "partial" }),
    ]);
  });

  it("a 429 names the status and the host, is retried, and never shows the key", async () => {
    const { result } = await runOn("limited");
    expect(result.status).toBe("error");
    expect(result.error?.message).toBe(
      `Model call failed after 2 attempts: openai-compatible (${root.slice(7)}): HTTP 429 rate limited for key [redacted]`,
    );
    expect(JSON.stringify(result)).not.toContain(KEY);
    expect(hits.limited).toBe(2);
  });
});
