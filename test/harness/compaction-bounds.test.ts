import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import { encode } from "gpt-tokenizer";
import { describe, expect, it } from "vitest";
import { packLines, summaryBudget, textTokens } from "../../src/harness/bounded-summary.js";
import { summarize } from "../../src/harness/compaction.js";
import type { Entry } from "../../src/harness/store/schema.js";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** The text of a request as the provider receives it. */
function requestText(o: LanguageModelV3CallOptions): string {
  return o.prompt
    .map((m) =>
      typeof m.content === "string"
        ? m.content
        : m.content.map((p) => ("text" in p && typeof p.text === "string" ? p.text : "")).join(""),
    )
    .join("\n");
}

/**
 * A provider with a window it enforces with a real tokenizer: a request whose prompt and output cap
 * exceed the window is refused, as a provider refuses it. Each answer says which messages it covers.
 */
function windowedModel(contextWindow: number) {
  const requests: { tokens: number; text: string }[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async (o) => {
      const text = requestText(o);
      const tokens = encode(text).length + 8;
      if (tokens + (o.maxOutputTokens ?? 0) > contextWindow) {
        throw new Error(`This model's maximum context length is ${contextWindow} tokens; got ${tokens}`);
      }
      requests.push({ tokens, text });
      const covered = [...text.matchAll(/m(\d+)\b/g)].map((m) => Number(m[1]));
      const answer = `covers m${Math.min(...covered)} to m${Math.max(...covered)}${text.includes("EARLIER") ? " after EARLIER" : ""}`;
      return {
        content: [{ type: "text", text: answer }],
        finishReason: { unified: "stop", raw: "stop" },
        usage,
        warnings: [],
      };
    },
  });
  return { model, requests };
}

let ids = 0;
function backlog(n: number): Entry[] {
  const out: Entry[] = [];
  for (let i = 0; i < n; i++) {
    const head = { sessionId: "1", parentId: null, depth: i, createdAt: "2026-01-01T00:00:00.000Z" };
    const text = `m${i} the bell rang under the marsh while the tide came in, and 钟声 carried over the dyke.`;
    out.push(
      i % 2 === 0
        ? { ...head, id: String(++ids), kind: "user", data: { text, intent: "prompt" } }
        : {
            ...head,
            id: String(++ids),
            kind: "assistant",
            data: { text, toolCalls: [], status: "complete" },
          },
    );
  }
  return out;
}

describe("compaction that fits the window", () => {
  it("summarises a backlog far larger than the window in parts and merges the partial summaries", async () => {
    const window = { contextWindow: 4000, maxOutputTokens: 300 };
    const { model, requests } = windowedModel(window.contextWindow);
    const entries = backlog(3000);
    const summary = await summarize({
      model,
      system: "You summarise an agent conversation.",
      previousSummary: "EARLIER: the outline was agreed.",
      entries,
      window,
      maxRetries: 0,
    });
    const parts = requests.filter((r) => r.text.includes("one part of a longer conversation"));
    const merges = requests.filter((r) => r.text.includes("Merge them"));
    expect(parts.length).toBeGreaterThan(20);
    expect(merges.length).toBeGreaterThanOrEqual(1);
    for (const r of requests)
      expect(r.tokens + window.maxOutputTokens).toBeLessThanOrEqual(window.contextWindow);
    // The parts cover the backlog in order, each message once.
    const ranges = parts.map((p) => [...p.text.matchAll(/\bm(\d+) the bell/g)].map((m) => Number(m[1])));
    expect(ranges.flat()).toEqual(entries.map((_, i) => i));
    // The last merge saw every part (and the summary so far): its answer spans them all.
    expect(summary).toBe("covers m0 to m2999 after EARLIER");
  });

  it("sends a backlog that fits as one request, with the summary so far", async () => {
    const { model, requests } = windowedModel(128_000);
    const summary = await summarize({
      model,
      system: "s",
      previousSummary: "EARLIER",
      entries: backlog(10),
      window: { contextWindow: 128_000 },
      maxRetries: 0,
    });
    expect(requests).toHaveLength(1);
    expect(requests[0].text).toContain("Summary so far:\nEARLIER");
    expect(summary).toBe("covers m0 to m9 after EARLIER");
  });

  it("refuses a window too small to merge in, without sending anything", async () => {
    const { model, requests } = windowedModel(300);
    const run = summarize({
      model,
      system: "s",
      previousSummary: null,
      entries: backlog(200),
      window: { contextWindow: 300 },
      maxRetries: 0,
    });
    await expect(run).rejects.toMatchObject({ code: "config_error" });
    expect(requests).toHaveLength(0);
  });

  it("packs lines in order within the budget, cutting only a line longer than a whole request", () => {
    const lines = ["a".repeat(30), "b".repeat(30), "c".repeat(3000), "d"];
    const packed = packLines(lines, 100);
    for (const p of packed) expect(textTokens(p)).toBeLessThanOrEqual(100);
    expect(packed.join("\n").replace(/… \[cut\]/, "")).toMatch(/^a+\nb+\nc+\nd$/);
    expect(packed.join("\n")).toContain("… [cut]");
    expect(summaryBudget({ contextWindow: 128_000 })).toEqual({ input: 128_000 - 4096, output: 4096 });
    expect(summaryBudget({ contextWindow: 4000, maxOutputTokens: 8000 })).toEqual({
      input: 3000,
      output: 1000,
    });
  });
});
