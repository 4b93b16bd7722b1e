import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { NbError } from "../core/errors.js";
import { agentSettings, loadModelsConfig, mergeModelsConfig, parseModelsConfig } from "./config.js";

function configError(fn: () => unknown): NbError {
  try {
    fn();
  } catch (e) {
    return e as NbError;
  }
  throw new Error("expected an error");
}

describe("models config", () => {
  it("accepts every provider kind and leaves other sections alone", () => {
    const c = parseModelsConfig(
      {
        providers: {
          local: {
            kind: "openai-compatible",
            baseURL: "http://127.0.0.1:11434/v1",
            models: { "qwen/qwen3": { contextWindow: 32000 } },
          },
          oa: { kind: "openai", apiKeyEnv: "MY_OPENAI" },
          claude: { kind: "anthropic", headers: { "x-team": "novel" } },
          demo: { kind: "scripted", script: "scripts/demo.yaml" },
        },
        defaultModel: "local/qwen/qwen3",
        profiles: { writer: { model: "claude/claude-sonnet-4-5" } },
        agent: { maxSteps: 20, maxRetries: 0, compaction: { threshold: 0.7, keepRecent: 0.25 } },
        web: { anything: true },
        models: {},
      },
      "config.json",
      "/ws",
    );
    expect(Object.keys(c.providers)).toEqual(["local", "oa", "claude", "demo"]);
    expect(c.providers.demo?.script).toBe("/ws/scripts/demo.yaml");
    expect(agentSettings(c)).toEqual({
      maxSteps: 20,
      maxRetries: 0,
      compactionThreshold: 0.7,
      compactionKeepRecent: 0.25,
      maxConcurrentJobs: 4,
      maxConcurrentModelCalls: 8,
      maxParallelToolCalls: 4,
    });
    expect((c as Record<string, unknown>).web).toEqual({ anything: true });
  });

  it("fills defaults for an empty config", () => {
    const c = parseModelsConfig({}, "config.json");
    expect(c.providers).toEqual({});
    expect(agentSettings(c)).toEqual({
      maxSteps: 50,
      maxRetries: 2,
      compactionThreshold: 0.8,
      compactionKeepRecent: 0.3,
      maxConcurrentJobs: 4,
      maxConcurrentModelCalls: 8,
      maxParallelToolCalls: 4,
    });
  });

  it("reports each problem as a config_error with a JSON Pointer", () => {
    const err = configError(() =>
      parseModelsConfig(
        {
          providers: {
            a: { kind: "openai-compatible" },
            b: { kind: "gemini" },
            c: { kind: "openai", apiKey: "sk-secret" },
            d: { kind: "scripted" },
            e: { kind: "openai", apiKeyEnv: "not a var" },
            f: { kind: "anthropic", headers: { "X-Api-Key": "sk-secret", "x-team": "ok" } },
            g: { kind: "openai-compatible", baseURL: "https://me:sk-secret@llm.example/v1" },
          },
          defaultModel: "no-slash",
          profiles: { writer: { model: "x/y", temperature: 1 } },
          agent: { compaction: { threshold: 1.5 } },
        },
        ".nbook/config.json",
      ),
    );
    expect(err.code).toBe("config_error");
    const pointers = err.fields?.map((f) => f.pointer) ?? [];
    for (const p of [
      "/providers/a/baseURL",
      "/providers/b/kind",
      "/providers/c/apiKey",
      "/providers/d/script",
      "/providers/e/apiKeyEnv",
      "/providers/f/headers/X-Api-Key",
      "/providers/g/baseURL",
      "/defaultModel",
      "/profiles/writer/temperature",
      "/agent/compaction/threshold",
    ]) {
      expect(pointers).toContain(p);
    }
    expect(err.message).toContain("Invalid .nbook/config.json");
    expect(err.message).toContain("/providers/a/baseURL: required for kind openai-compatible");
    expect(err.message).toContain("/providers/f/headers/X-Api-Key: credentials belong in the environment");
    expect(err.message).not.toContain("sk-secret");
  });

  it("merges a project override over the workspace config", () => {
    const base = parseModelsConfig(
      {
        providers: {
          shared: { kind: "openai", apiKeyEnv: "A", models: { m1: {} } },
          only: { kind: "anthropic" },
        },
        defaultModel: "shared/m1",
        profiles: { writer: { model: "only/x" }, leader: { model: "shared/m1" } },
        agent: { maxSteps: 10, compaction: { threshold: 0.5 } },
      },
      "ws",
    );
    const over = parseModelsConfig(
      {
        providers: { shared: { kind: "openai", apiKeyEnv: "A", models: { local: {} } } },
        profiles: { writer: { model: "shared/local" } },
        agent: { maxSteps: 5 },
      },
      "project",
    );
    const m = mergeModelsConfig(base, over);
    expect(m.providers.shared).toEqual({ kind: "openai", apiKeyEnv: "A", models: { local: {} } });
    expect(m.providers.only?.kind).toBe("anthropic");
    expect(m.defaultModel).toBe("shared/m1");
    expect(m.profiles).toEqual({ writer: { model: "shared/local" }, leader: { model: "shared/m1" } });
    expect(agentSettings(m)).toMatchObject({ maxSteps: 5, compactionThreshold: 0.5 });
  });

  it("loads the workspace file and the project's .nbook/config.json override", () => {
    const ws = mkdtempSync(join(tmpdir(), "nb-models-"));
    mkdirSync(join(ws, ".nbook"));
    mkdirSync(join(ws, "novel", ".nbook"), { recursive: true });
    writeFileSync(
      join(ws, ".nbook", "config.json"),
      JSON.stringify({ providers: { s: { kind: "scripted", script: "ws.yaml" } }, defaultModel: "s/a" }),
    );
    writeFileSync(
      join(ws, "novel", ".nbook", "config.json"),
      JSON.stringify({ providers: { p: { kind: "scripted", script: "p.yaml" } }, defaultModel: "p/b" }),
    );
    const wsOnly = loadModelsConfig({ workspaceRoot: ws });
    expect(wsOnly.defaultModel).toBe("s/a");
    expect(wsOnly.providers.s?.script).toBe(join(ws, "ws.yaml"));
    const merged = loadModelsConfig({ workspaceRoot: ws, projectRoot: join(ws, "novel") });
    expect(merged.defaultModel).toBe("p/b");
    expect(merged.providers.p?.script).toBe(join(ws, "novel", "p.yaml"));
    expect(merged.providers.s).toBeDefined();

    writeFileSync(join(ws, "novel", ".nbook", "config.json"), "{ not json");
    const err = configError(() => loadModelsConfig({ workspaceRoot: ws, projectRoot: join(ws, "novel") }));
    expect(err.code).toBe("config_error");
    expect(err.message).toMatch(/^project \.nbook\/config\.json is not valid JSON/);
    expect(err.message).not.toContain(ws);
  });
});

describe("docs/models.md", () => {
  it("its example config is valid", () => {
    const doc = readFileSync(fileURLToPath(new URL("../../docs/models.md", import.meta.url)), "utf8");
    const example = /```json\n([\s\S]*?)```/.exec(doc)?.[1];
    const c = parseModelsConfig(JSON.parse(example ?? "null"), "docs example");
    expect(Object.keys(c.providers)).toEqual(["local", "deepseek", "openai", "claude", "demo"]);
  });
});
