import { describe, expect, it } from "vitest";
import type { NbError } from "../../src/core/errors.js";
import { mergeModelsConfig, parseModelsConfig } from "../../src/models/config.js";

function configError(fn: () => unknown): NbError {
  try {
    fn();
  } catch (e) {
    return e as NbError;
  }
  throw new Error("expected an error");
}

describe("the embedding config section", () => {
  it("takes an API provider and model, or a folder made absolute against the config's folder", () => {
    const api = parseModelsConfig(
      { embedding: { provider: "oa", model: "text-embedding-3-small", dimensions: 512 } },
      "c",
    );
    expect(api.embedding).toEqual({ provider: "oa", model: "text-embedding-3-small", dimensions: 512 });
    const local = parseModelsConfig(
      { embedding: { folder: "models/e5", dimensions: 384, pooling: "mean" } },
      "c",
      "/ws",
    );
    expect(local.embedding?.folder).toBe("/ws/models/e5");
  });

  it("refuses a key or URL in the section, and half-configured models", () => {
    const e = configError(() =>
      parseModelsConfig(
        { embedding: { baseURL: "http://x", apiKey: "sk-1", model: "m", dimensions: 8 } },
        "c.json",
      ),
    );
    expect(e.code).toBe("config_error");
    expect(e.message).toContain("/embedding/apiKey: credentials belong in the environment");
    expect(e.message).toContain("/embedding/baseURL: the URL belongs to the provider");
    expect(e.message).not.toContain("sk-1");
    expect(
      configError(() => parseModelsConfig({ embedding: { provider: "p", dimensions: 8 } }, "c")).message,
    ).toContain("/embedding/model: required with provider");
    expect(
      configError(() => parseModelsConfig({ embedding: { folder: "f", model: "m", dimensions: 8 } }, "c"))
        .message,
    ).toContain("/embedding/model: not allowed with folder");
    expect(configError(() => parseModelsConfig({ embedding: { folder: "f" } }, "c")).message).toContain(
      "/embedding/dimensions",
    );
  });

  it("is replaced whole by a project's section", () => {
    const ws = parseModelsConfig(
      { embedding: { provider: "a", model: "m", dimensions: 8, batchSize: 4 } },
      "w",
    );
    const project = parseModelsConfig({ embedding: { folder: "/models/x", dimensions: 4 } }, "p");
    expect(mergeModelsConfig(ws, project).embedding).toEqual({ folder: "/models/x", dimensions: 4 });
    expect(mergeModelsConfig(ws, parseModelsConfig({}, "p")).embedding).toEqual(ws.embedding);
  });
});
