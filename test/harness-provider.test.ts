import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Harness } from "../src/harness/loop.js";
import { SessionStore } from "../src/harness/store/index.js";
import { parseModelsConfig, resolveModel } from "../src/models/index.js";
import { ProfileCatalog } from "../src/profiles/catalog.js";
import { createToolRegistry } from "../src/tools/builtin.js";
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
      expect(offered).toEqual([...catalog.allowlist("leader.default").keys()]);
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
