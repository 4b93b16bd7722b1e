import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { isModelTimeout, withTimeouts } from "./timeouts.js";

const site = {
  label: "openai (api.example.com)",
  url: "https://api.example.com/v1",
  setting: "providers.p.timeouts",
};
const short = { firstChunkMs: 50, idleMs: 50, generateMs: 50 };
const prompt = [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }];

/** A promise that settles only when the call's signal aborts, as a request on a silent socket does. */
function silent(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason)));
}

describe("withTimeouts", () => {
  it("ends a non-streamed call at generateMs, aborting the request", async () => {
    let seen: AbortSignal | undefined;
    const model = withTimeouts(
      new MockLanguageModelV3({
        doGenerate: (o) => {
          seen = o.abortSignal;
          return silent(o.abortSignal);
        },
      }),
      short,
      site,
    );
    const e = await Promise.resolve(model.doGenerate({ prompt })).catch((x: unknown) => x);
    expect(isModelTimeout(e)).toBe(true);
    expect((e as Error).message).toBe(
      "openai (api.example.com): timeout: no complete answer within 0.05 s (providers.p.timeouts.generateMs)",
    );
    expect(seen?.aborted).toBe(true);
  });

  it("leaves the caller's abort an abort, not a timeout", async () => {
    const controller = new AbortController();
    const model = withTimeouts(
      new MockLanguageModelV3({ doStream: (o) => silent(o.abortSignal) }),
      { ...short, firstChunkMs: 10_000 },
      site,
    );
    setTimeout(() => controller.abort(new DOMException("stop", "AbortError")), 5);
    const e = await Promise.resolve(model.doStream({ prompt, abortSignal: controller.signal })).catch(
      (x: unknown) => x,
    );
    expect(isModelTimeout(e)).toBe(false);
    expect((e as Error).name).toBe("AbortError");
  });

  it("counts raw chunks as signs of life but passes them on only when asked", async () => {
    // A raw chunk every 20 ms for 200 ms: twice idleMs in total, never silent for that long.
    const model = withTimeouts(
      new MockLanguageModelV3({
        doStream: async (o) => {
          expect(o.includeRawChunks).toBe(true);
          let n = 0;
          const stream = new ReadableStream<LanguageModelV3StreamPart>({
            async pull(c) {
              await new Promise((r) => setTimeout(r, 20));
              if (++n <= 10) c.enqueue({ type: "raw", rawValue: { ping: n } });
              else c.close();
            },
          });
          return { stream };
        },
      }),
      { ...short, idleMs: 100 },
      site,
    );
    const { stream } = await model.doStream({ prompt, includeRawChunks: false });
    const parts: unknown[] = [];
    for await (const p of stream) parts.push(p);
    expect(parts).toEqual([]);
  });
});
