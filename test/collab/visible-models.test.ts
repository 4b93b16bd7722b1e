import { describe, expect, it } from "vitest";
import { visibleModels } from "../../src/collab/visible-models.js";
import { agentSettings, parseModelsConfig } from "../../src/models/index.js";

describe("the models visible to agents", () => {
  it("are the models the config names: default, per profile, and each provider's listed models", () => {
    const config = parseModelsConfig(
      {
        providers: {
          local: { kind: "openai-compatible", baseURL: "http://127.0.0.1:1/v1", models: { "qwen3:8b": {} } },
          claude: { kind: "anthropic" },
        },
        defaultModel: "local/qwen3:8b",
        profiles: { writer: { model: "claude/sonnet" } },
      },
      "test",
    );
    expect(visibleModels(config)).toEqual(["claude/sonnet", "local/qwen3:8b"]);
    expect(visibleModels(parseModelsConfig({}, "test"))).toEqual([]);
  });
});

describe("the parallel tool-call cap in config", () => {
  it("is agent.maxParallelToolCalls, 4 by default, bounded", () => {
    expect(agentSettings(parseModelsConfig({}, "test")).maxParallelToolCalls).toBe(4);
    expect(
      agentSettings(parseModelsConfig({ agent: { maxParallelToolCalls: 2 } }, "test")).maxParallelToolCalls,
    ).toBe(2);
    expect(() => parseModelsConfig({ agent: { maxParallelToolCalls: 0 } }, "test")).toThrow(
      /maxParallelToolCalls/,
    );
  });
});
