import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { generateText, jsonSchema, stepCountIs, streamText, tool } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseModelsConfig } from "./config.js";
import { resolveModel } from "./resolve.js";

interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
  body: {
    model: string;
    stream: boolean;
    messages: { role: string; content?: unknown; tool_call_id?: string }[];
  };
}

const seen: Seen[] = [];
let server: Server;
let baseURL: string;

function chunk(
  delta: Record<string, unknown>,
  finish: string | null = null,
  usage?: Record<string, number>,
): string {
  const body = {
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 0,
    model: "stub",
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  };
  return `data: ${JSON.stringify(body)}\n\n`;
}

/** A minimal OpenAI-style `/chat/completions` SSE stub: a tool call first, then text once it sees the tool result. */
function reply(body: Seen["body"]): string[] {
  const hasToolResult = body.messages.some((m) => m.role === "tool");
  if (!hasToolResult) {
    return [
      chunk({ role: "assistant", content: "Reading. " }),
      chunk({
        tool_calls: [
          { index: 0, id: "call_a", type: "function", function: { name: "read", arguments: '{"path":' } },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"lorebook/hero.md"}' } }] }),
      chunk({}, "tool_calls", { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29 }),
      "data: [DONE]\n\n",
    ];
  }
  return [
    chunk({ role: "assistant", content: "The hero " }),
    chunk({ content: "is Lin." }),
    chunk({}, "stop", { prompt_tokens: 40, completion_tokens: 5, total_tokens: 45 }),
    "data: [DONE]\n\n",
  ];
}

function sse(event: string, data: Record<string, unknown>): string {
  return `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
}

/** Anthropic `/messages` stream: one text block. */
function anthropicReply(): string[] {
  return [
    sse("message_start", {
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "stub",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 12, output_tokens: 1 },
      },
    }),
    sse("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
    sse("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Hello from " } }),
    sse("content_block_delta", { index: 0, delta: { type: "text_delta", text: "the stub." } }),
    sse("content_block_stop", { index: 0 }),
    sse("message_delta", {
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: 6 },
    }),
    sse("message_stop", {}),
  ];
}

/** OpenAI `/responses` (non-streaming) answer with one text message. */
function openaiResponse(): string {
  return JSON.stringify({
    id: "resp_1",
    object: "response",
    created_at: 0,
    status: "completed",
    model: "stub",
    output: [
      {
        type: "message",
        id: "msg_1",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "Hi from responses.", annotations: [] }],
      },
    ],
    usage: { input_tokens: 8, output_tokens: 4, total_tokens: 12 },
  });
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => {
      raw += d;
    });
    req.on("end", () => {
      const body = JSON.parse(raw) as Seen["body"];
      seen.push({ path: req.url ?? "", headers: req.headers, body });
      const type = req.url === "/v1/responses" ? "application/json" : "text/event-stream";
      res.writeHead(200, { "content-type": type, "cache-control": "no-cache" });
      const parts =
        req.url === "/v1/messages"
          ? anthropicReply()
          : req.url === "/v1/responses"
            ? [openaiResponse()]
            : reply(body);
      for (const part of parts) res.write(part);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("openai-compatible provider against a loopback /chat/completions stub", () => {
  it("streams text and tool calls, and sends the key from the named env var as a bearer token", async () => {
    const secret = "sk-test-5f3a9c-not-a-real-key";
    const config = parseModelsConfig(
      {
        providers: {
          local: {
            kind: "openai-compatible",
            baseURL,
            apiKeyEnv: "NB_STUB_KEY",
            headers: { "x-novel": "lin" },
          },
        },
      },
      "config.json",
    );
    const resolved = resolveModel("local/qwen/qwen3-8b", config, { NB_STUB_KEY: secret });
    const result = streamText({
      model: resolved.model,
      system: "You are the leader.",
      prompt: "Who is the hero?",
      tools: {
        read: tool({
          description: "read a file",
          inputSchema: jsonSchema<{ path: string }>({
            type: "object",
            properties: { path: { type: "string" } },
            required: ["path"],
          }),
          execute: async ({ path }) => `# ${path}\nLin, a cartographer.`,
        }),
      },
      stopWhen: stepCountIs(3),
    });
    const deltas: string[] = [];
    const calls: unknown[] = [];
    for await (const part of result.fullStream) {
      if (part.type === "text-delta") deltas.push(part.text);
      if (part.type === "tool-call")
        calls.push({ id: part.toolCallId, name: part.toolName, input: part.input });
      if (part.type === "error") throw part.error;
    }
    expect(deltas.join("")).toBe("Reading. The hero is Lin.");
    expect(calls).toEqual([{ id: "call_a", name: "read", input: { path: "lorebook/hero.md" } }]);
    expect((await result.totalUsage).inputTokens).toBe(60);

    expect(seen).toHaveLength(2);
    for (const s of seen) {
      expect(s.path).toBe("/v1/chat/completions");
      expect(s.headers.authorization).toBe(`Bearer ${secret}`);
      expect(s.headers["x-novel"]).toBe("lin");
      expect(s.body.model).toBe("qwen/qwen3-8b");
      expect(s.body.stream).toBe(true);
    }
    const toolMsg = seen[1]?.body.messages.find((m) => m.role === "tool");
    expect(toolMsg?.tool_call_id).toBe("call_a");
    expect(JSON.stringify(toolMsg?.content)).toContain("Lin, a cartographer.");

    // The key lives only inside the SDK's closure: not in what we return, nor in the config.
    const { model: _model, ...described } = resolved;
    expect(JSON.stringify(described)).not.toContain(secret);
    expect(JSON.stringify(resolved.model)).not.toContain(secret);
    expect(JSON.stringify(config)).not.toContain(secret);
  });
});

describe("openai and anthropic providers reach the configured baseURL with the key from env", () => {
  it("anthropic streams text and sends x-api-key", async () => {
    const config = parseModelsConfig(
      { providers: { claude: { kind: "anthropic", baseURL, apiKeyEnv: "NB_ANT" } } },
      "c",
    );
    const { model } = resolveModel("claude/claude-test", config, { NB_ANT: "ant-key-1" });
    const before = seen.length;
    // Given, as the harness gives a configured limit: for a model id it does not know, the provider
    // would otherwise pick one itself and the AI SDK print a warning about it.
    const result = streamText({ model, prompt: "hi", maxOutputTokens: 64 });
    expect(await result.text).toBe("Hello from the stub.");
    expect((await result.usage).outputTokens).toBe(6);
    const req = seen[before];
    expect(req?.path).toBe("/v1/messages");
    expect(req?.headers["x-api-key"]).toBe("ant-key-1");
    expect(req?.body.model).toBe("claude-test");
  });

  it("openai uses the Responses API with a bearer key", async () => {
    const config = parseModelsConfig({ providers: { oa: { kind: "openai", baseURL } } }, "c");
    const { model } = resolveModel("oa/gpt-test", config, { OPENAI_API_KEY: "oa-key-2" });
    const before = seen.length;
    const r = await generateText({ model, prompt: "hi" });
    expect(r.text).toBe("Hi from responses.");
    const req = seen[before];
    expect(req?.path).toBe("/v1/responses");
    expect(req?.headers.authorization).toBe("Bearer oa-key-2");
    expect(req?.body.model).toBe("gpt-test");
  });
});
