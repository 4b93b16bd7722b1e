import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseModelsConfig } from "../../src/models/config.js";
import { resolveModel } from "../../src/models/resolve.js";
import { withToolDialect } from "../../src/models/tool-dialect.js";

const TOOL_SCHEMA = {
  type: "object",
  properties: { path: { type: "string" }, offset: { type: "integer" }, note: { type: ["string", "null"] } },
  required: ["path"],
  additionalProperties: false,
};

const options: LanguageModelV3CallOptions = {
  prompt: [
    { role: "system", content: "You are the writer." },
    { role: "user", content: [{ type: "text", text: "Read it." }] },
  ],
  tools: [
    { type: "function", name: "read", description: "read a file", inputSchema: TOOL_SCHEMA as never },
    {
      type: "function",
      name: "anything",
      description: "free-form",
      inputSchema: {
        type: "object",
        properties: { data: { type: "object", additionalProperties: {} } },
        additionalProperties: false,
      } as never,
    },
  ],
};

/** An inner model that records what it was sent and answers one call of `read` with `input`. */
function recorder(input: string): { model: LanguageModelV3; sent: LanguageModelV3CallOptions[] } {
  const sent: LanguageModelV3CallOptions[] = [];
  const call = { type: "tool-call" as const, toolCallId: "c1", toolName: "read", input };
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 },
  };
  const model: LanguageModelV3 = {
    specificationVersion: "v3",
    provider: "fake",
    modelId: "m",
    supportedUrls: {},
    async doGenerate(o) {
      sent.push(o);
      return {
        content: [call],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage,
        warnings: [],
      };
    },
    async doStream(o) {
      sent.push(o);
      const parts: LanguageModelV3StreamPart[] = [
        call,
        { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage },
      ];
      return {
        stream: new ReadableStream({
          start: (c) => {
            for (const p of parts) c.enqueue(p);
            c.close();
          },
        }),
      };
    },
  };
  return { model, sent };
}

async function streamedCall(model: LanguageModelV3): Promise<string> {
  const { stream } = await model.doStream(options);
  const reader = stream.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error("no tool call");
    if (value.type === "tool-call") return value.input;
  }
}

describe("tool dialects", () => {
  it("openai-strict: sends strict tools where strict mode can say them, and maps a call's nulls back", async () => {
    const { model, sent } = recorder('{"path":"a.md","offset":null,"note":null}');
    const wrapped = withToolDialect(model, "openai-strict");
    expect(JSON.parse(await streamedCall(wrapped))).toEqual({ path: "a.md", note: null });
    const [read, anything] = sent[0]!.tools as { strict?: boolean; inputSchema: { required?: string[] } }[];
    expect(read?.strict).toBe(true);
    expect(read?.inputSchema.required).toEqual(["path", "offset", "note"]);
    expect(anything?.strict).toBeUndefined();
    const r = await wrapped.doGenerate(options);
    expect(r.content[0]?.type === "tool-call" && JSON.parse(r.content[0].input)).toEqual({
      path: "a.md",
      note: null,
    });
    // A malformed argument stays as it came, for dispatch to refuse with a field error.
    expect(await streamedCall(withToolDialect(recorder('{"path":').model, "openai-strict"))).toBe('{"path":');
  });

  it("gemini: one type per node with nullable, no additionalProperties", async () => {
    const { model, sent } = recorder('{"path":"a.md"}');
    await streamedCall(withToolDialect(model, "gemini"));
    const read = sent[0]!.tools![0] as unknown as { inputSchema: Record<string, unknown> };
    expect(read.inputSchema).toEqual({
      type: "object",
      properties: {
        path: { type: "string" },
        offset: { type: "integer" },
        note: { type: "string", nullable: true },
      },
      required: ["path"],
    });
  });

  it("anthropic: cache breakpoints on the last tool, the system prompt and the last message", async () => {
    const { model, sent } = recorder('{"path":"a.md"}');
    await streamedCall(withToolDialect(model, "anthropic"));
    const o = sent[0]!;
    const cache = { anthropic: { cacheControl: { type: "ephemeral" } } };
    expect(o.tools?.map((t) => t.type === "function" && t.providerOptions)).toEqual([undefined, cache]);
    expect(o.prompt.map((m) => m.providerOptions)).toEqual([cache, cache]);
  });
});

describe("on the wire (loopback Anthropic and OpenAI servers)", () => {
  const bodies: { url: string; body: Record<string, unknown> }[] = [];
  let server: Server;
  let baseURL: string;
  const sse = (event: string, data: Record<string, unknown>) =>
    `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = "";
      req.on("data", (d) => {
        raw += d;
      });
      req.on("end", () => {
        bodies.push({ url: req.url ?? "", body: JSON.parse(raw) });
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(
          sse("message_start", {
            message: {
              id: "msg_1",
              type: "message",
              role: "assistant",
              model: "stub",
              content: [],
              stop_reason: null,
              stop_sequence: null,
              usage: {
                input_tokens: 5,
                cache_read_input_tokens: 900,
                cache_creation_input_tokens: 40,
                output_tokens: 1,
              },
            },
          }),
        );
        res.write(sse("content_block_start", { index: 0, content_block: { type: "text", text: "" } }));
        res.write(sse("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Hi." } }));
        res.write(sse("content_block_stop", { index: 0 }));
        res.write(
          sse("message_delta", {
            delta: { stop_reason: "end_turn", stop_sequence: null },
            usage: { output_tokens: 2 },
          }),
        );
        res.write(sse("message_stop", {}));
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("an anthropic provider sends cache_control on the stable prefix and reports cache reads", async () => {
    const config = parseModelsConfig({ providers: { claude: { kind: "anthropic", baseURL } } }, "c");
    const { model } = resolveModel("claude/claude-test", config, { ANTHROPIC_API_KEY: "k" });
    const { stream } = await model.doStream({ ...options, maxOutputTokens: 64 });
    let usage: unknown;
    const reader = stream.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (value.type === "finish") usage = value.usage;
    }
    const body = bodies.at(-1)!.body as {
      tools: { cache_control?: unknown }[];
      system: { cache_control?: unknown }[];
    };
    expect(body.tools.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
    expect(body.system.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
    expect(usage).toMatchObject({ inputTokens: { cacheRead: 900, cacheWrite: 40 } });
  });
});
