import { APICallError, type LanguageModelV3, type LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { REDACTED, withKeyRedacted } from "./redact.js";

const KEY = "sk-unit-3b9f0c1d7e";
const options: LanguageModelV3CallOptions = {
  prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
};

function failing(error: unknown): LanguageModelV3 {
  return new MockLanguageModelV3({
    doGenerate: async () => {
      throw error;
    },
    doStream: async () => {
      throw error;
    },
  });
}

describe("withKeyRedacted", () => {
  it("masks the key in a thrown APICallError and keeps it retryable", async () => {
    const echoed = new APICallError({
      message: `Incorrect API key provided: ${KEY}`,
      url: "http://127.0.0.1/v1/chat/completions",
      requestBodyValues: {},
      statusCode: 429,
      responseBody: JSON.stringify({ error: { message: `key ${KEY}` } }),
      isRetryable: true,
      data: { error: { message: `key ${KEY}` } },
    });
    const model = withKeyRedacted(failing(echoed), KEY);
    for (const call of [() => model.doGenerate(options), () => model.doStream(options)]) {
      const e = await Promise.resolve(call()).catch((err: unknown) => err);
      expect(APICallError.isInstance(e)).toBe(true);
      const api = e as APICallError;
      expect(api.message).toBe(`Incorrect API key provided: ${REDACTED}`);
      expect([api.isRetryable, api.statusCode]).toEqual([true, 429]);
      expect(JSON.stringify([api.message, api.responseBody, api.data])).not.toContain(KEY);
    }
  });

  it("passes errors that do not mention the key through unchanged", async () => {
    const abort = new DOMException("The operation was aborted", "AbortError");
    const e = await Promise.resolve(withKeyRedacted(failing(abort), KEY).doGenerate(options)).catch(
      (err: unknown) => err,
    );
    expect(e).toBe(abort);
  });

  it("masks the key in error parts and in errors that end the stream", async () => {
    let pulls = 0;
    const model = withKeyRedacted(
      new MockLanguageModelV3({
        doStream: async () => ({
          stream: new ReadableStream({
            pull(c) {
              const parts = [
                { type: "text-delta" as const, id: "t", delta: "no key here" },
                { type: "error" as const, error: { message: `bad key ${KEY}`, code: 401 } },
              ];
              const next = parts[pulls++];
              if (next) c.enqueue(next);
              else c.error(new Error(`socket closed for ${KEY}`));
            },
          }),
        }),
      }),
      KEY,
    );
    const reader = (await model.doStream(options)).stream.getReader();
    expect((await reader.read()).value).toEqual({ type: "text-delta", id: "t", delta: "no key here" });
    expect((await reader.read()).value).toEqual({
      type: "error",
      error: { message: `bad key ${REDACTED}`, code: 401 },
    });
    const end = await reader.read().catch((err: unknown) => err);
    expect((end as Error).message).toBe(`socket closed for ${REDACTED}`);
  });
});
