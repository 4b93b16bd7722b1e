import { type BenchSuite, round } from "../lib.js";
import { measureOverhead, OVERHEAD_BEFORE } from "../prompt-overhead.js";

/**
 * The fixed cost of one turn per built-in profile (system prompt and tool definitions, o200k tokens):
 * each figure now, with today's figure from main before the reduction as its baseline, and the share
 * of the whole that is left (target: at most 0.5).
 */
export const suite: BenchSuite = {
  name: "prompt",
  description: "per-turn system and tool tokens per profile (o200k), before → after",
  async run(report) {
    for (const o of measureOverhead()) {
      const before = OVERHEAD_BEFORE[o.profile];
      report({
        name: `${o.profile} system`,
        unit: "tokens",
        value: o.systemTokens,
        baseline: before?.systemTokens,
      });
      report({
        name: `${o.profile} tools`,
        unit: "tokens",
        value: o.toolTokens,
        baseline: before?.toolTokens,
      });
      if (!before) continue;
      const was = before.systemTokens + before.toolTokens;
      const now = o.systemTokens + o.toolTokens;
      report({
        name: `${o.profile} total`,
        unit: "tokens",
        value: now,
        baseline: was,
        ratio: round(now / was),
        target: "<= 0.5 of before",
      });
    }
  },
};
