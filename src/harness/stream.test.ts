import { APICallError, type LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { callModel } from "./stream.js";

const usage = {
  inputTokens: { total: 12, noCache: 12, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 3, text: 3, reasoning: undefined },
};

function answer(parts: LanguageModelV3StreamPart[]) {
  return { stream: convertArrayToReadableStream<LanguageModelV3StreamPart>(parts) };
}

const textAnswer = async () =>
  answer([
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t" },
    { type: "text-delta", id: "t", delta: "Hel" },
    { type: "text-delta", id: "t", delta: "" },
    { type: "text-delta", id: "t", delta: "lo" },
    { type: "text-end", id: "t" },
    { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
  ]);

function apiError(message: string, opts: { retryable: boolean; headers?: Record<string, string> }) {
  return new APICallError({
    message,
    url: "http://127.0.0.1/v1/chat",
    requestBodyValues: {},
    statusCode: opts.retryable ? 503 : 400,
    responseHeaders: opts.headers,
    isRetryable: opts.retryable,
  });
}

const call = (model: MockLanguageModelV3, extra: { signal?: AbortSignal; maxRetries?: number } = {}) => {
  const deltas: string[] = [];
  const turn = callModel({
    model,
    system: "You are terse.",
    messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    tools: [],
    maxRetries: extra.maxRetries ?? 2,
    signal: extra.signal,
    onText: (d) => deltas.push(d),
  });
  return { turn, deltas };
};

describe("callModel on the provider's doStream", () => {
  it("sends the system prompt, the messages and the tools, and collects text deltas and usage", async () => {
    const model = new MockLanguageModelV3({ doStream: textAnswer });
    const tool = {
      type: "function" as const,
      name: "read",
      description: "Read",
      inputSchema: { type: "object" as const },
    };
    const deltas: string[] = [];
    const turn = await callModel({
      model,
      system: "SYS",
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      tools: [tool],
      maxRetries: 0,
      onText: (d) => deltas.push(d),
    });
    expect(turn).toEqual({
      text: "Hello",
      toolCalls: [],
      usage: { inputTokens: 12, outputTokens: 3 },
      error: null,
      aborted: false,
    });
    expect(deltas).toEqual(["Hel", "lo"]);
    const sent = model.doStreamCalls[0];
    expect(sent.prompt).toEqual([
      { role: "system", content: "SYS" },
      { role: "user", content: [{ type: "text", text: "hi" }] },
    ]);
    expect(sent.tools).toEqual([tool]);
    expect(sent.toolChoice).toEqual({ type: "auto" });
  });

  it("parses tool input as streamText does: empty is {}, bad JSON and prototype keys stay raw for dispatch to refuse", async () => {
    const inputs = ['{"path":"a.md"}', " ", "{not json", '{"__proto__":{"x":1}}', "null"];
    const model = new MockLanguageModelV3({
      doStream: async () =>
        answer([
          ...inputs.map(
            (input, i): LanguageModelV3StreamPart => ({
              type: "tool-call",
              toolCallId: `c${i}`,
              toolName: "read",
              input,
            }),
          ),
          { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage },
        ]),
    });
    const turn = await call(model).turn;
    expect(turn.toolCalls.map((c) => c.input)).toEqual([
      { path: "a.md" },
      {},
      "{not json",
      '{"__proto__":{"x":1}}',
      {},
    ]);
    expect(turn.toolCalls.map((c) => [c.id, c.key])[0]).toEqual(["c0", "read"]);
  });

  it("retries a retryable provider error after the wait the server asks for, then streams the answer", async () => {
    let attempts = 0;
    const model = new MockLanguageModelV3({
      doStream: async () => {
        attempts++;
        if (attempts === 1)
          throw apiError("overloaded", { retryable: true, headers: { "retry-after-ms": "5" } });
        return textAnswer();
      },
    });
    const { turn, deltas } = call(model);
    expect(await turn).toMatchObject({ text: "Hello", error: null, aborted: false });
    expect(attempts).toBe(2);
    expect(deltas).toEqual(["Hel", "lo"]);
  });

  it("does not retry a non-retryable error, and names every attempt once retries run out", async () => {
    const refused = new MockLanguageModelV3({
      doStream: async () => {
        throw apiError("401 unauthorized\nbody: secret", { retryable: false });
      },
    });
    expect((await call(refused).turn).error).toEqual({
      code: "io_error",
      message: "Model call failed: 401 unauthorized",
    });
    expect(refused.doStreamCalls).toHaveLength(1);

    const busy = new MockLanguageModelV3({
      doStream: async () => {
        throw apiError("busy", { retryable: true, headers: { "retry-after": "0" } });
      },
    });
    expect((await call(busy, { maxRetries: 2 }).turn).error?.message).toBe(
      "Model call failed after 3 attempts: busy",
    );
    expect(busy.doStreamCalls).toHaveLength(3);
  });

  it("an abort while waiting to retry ends the call as aborted without another attempt", async () => {
    const controller = new AbortController();
    const model = new MockLanguageModelV3({
      doStream: async () => {
        setTimeout(() => controller.abort(), 5);
        throw apiError("busy", { retryable: true });
      },
    });
    const turn = await call(model, { signal: controller.signal }).turn;
    expect(turn).toMatchObject({ aborted: true, error: null });
    expect(model.doStreamCalls).toHaveLength(1);
  });

  it("retries a stream that fails transiently before anything arrived, not once text has streamed", async () => {
    const dropped = () => apiError("connection reset", { retryable: true, headers: { "retry-after": "0" } });
    let attempts = 0;
    const early = new MockLanguageModelV3({
      doStream: async () => {
        attempts++;
        if (attempts === 2) return textAnswer();
        return answer([
          { type: "stream-start", warnings: [] },
          { type: "error", error: dropped() },
        ]);
      },
    });
    const first = call(early);
    expect(await first.turn).toMatchObject({ text: "Hello", error: null });
    expect(attempts).toBe(2);
    expect(first.deltas).toEqual(["Hel", "lo"]);

    const late = new MockLanguageModelV3({
      doStream: async () =>
        answer([
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: "Half" },
          { type: "error", error: dropped() },
        ]),
    });
    expect(await call(late).turn).toMatchObject({
      text: "Half",
      error: {
        code: "io_error",
        message: "Model call failed: connection reset (not retried: part of the answer had already arrived)",
      },
    });
    expect(late.doStreamCalls).toHaveLength(1);
  });

  it("an error part keeps the text that arrived before it", async () => {
    const model = new MockLanguageModelV3({
      doStream: async () =>
        answer([
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: "Half" },
          { type: "error", error: apiError("upstream reset", { retryable: false }) },
        ]),
    });
    expect(await call(model).turn).toMatchObject({
      text: "Half",
      error: { message: "Model call failed: upstream reset" },
      aborted: false,
    });
  });
});
