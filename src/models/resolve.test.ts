import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateText } from "ai";
import { describe, expect, it } from "vitest";
import type { NbError } from "../core/errors.js";
import { parseModelsConfig } from "./config.js";
import { parseModelRef, selectModelRef } from "./reference.js";
import { DEFAULT_CONTEXT_WINDOW, resolveModel, resolveSessionModel } from "./resolve.js";

function caught(fn: () => unknown): NbError {
  try {
    fn();
  } catch (e) {
    return e as NbError;
  }
  throw new Error("expected an error");
}

describe("model references", () => {
  it("split at the first slash; the model id may contain slashes", () => {
    expect(parseModelRef("local/qwen/qwen3-32b")).toEqual({ providerId: "local", modelId: "qwen/qwen3-32b" });
    expect(parseModelRef("oa/gpt-4o")).toEqual({ providerId: "oa", modelId: "gpt-4o" });
    for (const bad of ["gpt-4o", "/x", "a/", "a b/c", ""])
      expect(caught(() => parseModelRef(bad)).code).toBe("invalid_input");
  });

  it("select in order: override > config profile > profile default > config default", () => {
    const config = { profiles: { writer: { model: "cfg/writer" } }, defaultModel: "cfg/default" };
    const base = { profileKey: "writer", profileDefault: "prof/own", config };
    expect(selectModelRef({ ...base, override: "cli/x" })).toEqual({ ref: "cli/x", source: "override" });
    expect(selectModelRef(base)).toEqual({ ref: "cfg/writer", source: "config_profile" });
    expect(selectModelRef({ ...base, profileKey: "leader" })).toEqual({ ref: "prof/own", source: "profile" });
    expect(selectModelRef({ ...base, profileKey: "leader", profileDefault: null })).toEqual({
      ref: "cfg/default",
      source: "config_default",
    });
  });

  it("no model anywhere is a config_error naming the settings to add", () => {
    const err = caught(() => selectModelRef({ profileKey: "leader.default", config: { profiles: {} } }));
    expect(err.code).toBe("config_error");
    expect(err.message).toContain('No model configured for profile "leader.default"');
    expect(err.message).toContain('"defaultModel"');
    expect(err.message).toContain("profiles.leader.default.model");
    expect(err.message).toContain("--script");
  });
});

describe("resolveModel", () => {
  const config = parseModelsConfig(
    {
      providers: {
        local: { kind: "openai-compatible", baseURL: "http://127.0.0.1:9/v1" },
        keyed: {
          kind: "openai-compatible",
          baseURL: "http://127.0.0.1:9/v1",
          apiKeyEnv: "NB_TEST_KEY",
          models: { big: { contextWindow: 200_000, maxOutputTokens: 8000 } },
        },
        oa: { kind: "openai" },
        claude: { kind: "anthropic", apiKeyEnv: "NB_CLAUDE" },
      },
    },
    "config.json",
  );

  it("builds AI SDK models with the declared limits", () => {
    const r = resolveModel("keyed/big", config, { NB_TEST_KEY: "k" });
    expect(r.model.specificationVersion).toBe("v3");
    expect(r.model.modelId).toBe("big");
    expect(r).toMatchObject({
      ref: "keyed/big",
      providerId: "keyed",
      kind: "openai-compatible",
      contextWindow: 200_000,
      maxOutputTokens: 8000,
    });
    const local = resolveModel("local/llama3.1:8b", config, {});
    expect(local.contextWindow).toBe(DEFAULT_CONTEXT_WINDOW);
    expect(local.maxOutputTokens).toBeUndefined();
    expect(resolveModel("oa/gpt-4o-mini", config, { OPENAI_API_KEY: "k" }).model.provider).toMatch(/^oa/);
    expect(resolveModel("claude/claude-x", config, { NB_CLAUDE: "k" }).model.provider).toMatch(/^claude/);
  });

  it("names the unknown provider, the undeclared model and the missing key variable", () => {
    const p = caught(() => resolveModel("nope/m", config, {}));
    expect(p.code).toBe("config_error");
    expect(p.message).toContain('no provider "nope"');
    expect(p.message).toContain("configured: local, keyed, oa, claude");

    const m = caught(() => resolveModel("keyed/small", config, { NB_TEST_KEY: "k" }));
    expect(m.message).toContain('declares no model "small" (declared: big)');

    const k = caught(() => resolveModel("keyed/big", config, {}));
    expect(k.code).toBe("config_error");
    expect(k.message).toContain("NB_TEST_KEY");
    expect(caught(() => resolveModel("oa/gpt-4o", config, {})).message).toContain("OPENAI_API_KEY");
    expect(caught(() => resolveModel("claude/c", config, { ANTHROPIC_API_KEY: "k" })).message).toContain(
      "NB_CLAUDE",
    );
  });
});

describe("resolveSessionModel", () => {
  const ws = mkdtempSync(join(tmpdir(), "nb-session-model-"));
  mkdirSync(join(ws, ".nbook"));
  writeFileSync(join(ws, "a.yaml"), "model: alpha\nturns:\n  - text: from config\n");
  writeFileSync(join(ws, "b.yaml"), "turns:\n  - text: from --script\n");
  writeFileSync(
    join(ws, ".nbook", "config.json"),
    JSON.stringify({
      providers: { s: { kind: "scripted", script: "a.yaml" } },
      profiles: { writer: { model: "s/w" } },
    }),
  );

  it("--script needs no config at all", async () => {
    const empty = mkdtempSync(join(tmpdir(), "nb-empty-"));
    const r = resolveSessionModel({
      workspaceRoot: empty,
      profileKey: "leader.default",
      script: join(ws, "b.yaml"),
    });
    expect(r).toMatchObject({ ref: "scripted/b.yaml", kind: "scripted", source: "script" });
    expect((await generateText({ model: r.model, prompt: "x" })).text).toBe("from --script");
  });

  it("uses the pinned reference unless --model overrides it, else the config", async () => {
    expect(resolveSessionModel({ workspaceRoot: ws, profileKey: "writer" })).toMatchObject({
      ref: "s/w",
      source: "config_profile",
    });
    expect(
      resolveSessionModel({ workspaceRoot: ws, profileKey: "writer", pinned: "s/pinned" }),
    ).toMatchObject({
      ref: "s/pinned",
      source: "pinned",
    });
    const o = resolveSessionModel({
      workspaceRoot: ws,
      profileKey: "writer",
      pinned: "s/pinned",
      override: "s/o",
    });
    expect(o).toMatchObject({ ref: "s/o", source: "override", modelId: "o" });
    expect((await generateText({ model: o.model, prompt: "x" })).text).toBe("from config");
    expect(caught(() => resolveSessionModel({ workspaceRoot: ws, profileKey: "leader.default" })).code).toBe(
      "config_error",
    );
  });
});
