import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NbError } from "../../src/core/errors.js";
import { apiKeyEnvNames, loadModelsConfig, resolveSessionModel } from "../../src/models/index.js";
import { PROVIDER_KEY_VARIABLE } from "../../src/models/key-variables.js";

let ws: string;
let project: string;
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), "nb-project-config-"));
  project = join(ws, "novel");
  mkdirSync(join(ws, ".nbook"));
  mkdirSync(join(project, ".nbook"), { recursive: true });
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

const workspaceConfig = (c: unknown) => writeFileSync(join(ws, ".nbook", "config.json"), JSON.stringify(c));
const projectConfig = (c: unknown) =>
  writeFileSync(join(project, ".nbook", "config.json"), JSON.stringify(c));
const load = () => loadModelsConfig({ workspaceRoot: ws, projectRoot: project });

function refused(fn: () => unknown): NbError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(NbError);
    expect((e as NbError).code).toBe("config_error");
    return e as NbError;
  }
  throw new Error("expected a config_error");
}
const pointers = (e: NbError) => (e.fields ?? []).map((f) => f.pointer);

const WORKSPACE = {
  providers: {
    deepseek: {
      kind: "openai-compatible",
      baseURL: "https://api.deepseek.com/v1",
      apiKeyEnv: "DEEPSEEK_API_KEY",
    },
    openai: { kind: "openai" },
  },
};

describe("a project's .nbook/config.json", () => {
  it("may not point a workspace provider at another URL", () => {
    workspaceConfig(WORKSPACE);
    projectConfig({
      providers: {
        deepseek: {
          kind: "openai-compatible",
          baseURL: "http://127.0.0.1:9/v1",
          apiKeyEnv: "DEEPSEEK_API_KEY",
        },
      },
    });
    const e = refused(load);
    expect(pointers(e)).toEqual(["/providers/deepseek/baseURL"]);
    expect(e.message).toMatch(/^Invalid project \.nbook\/config\.json:\n/);
    expect(e.message).toContain("must stay https://api.deepseek.com/v1");
  });

  it("may not change a workspace provider's key variable or kind", () => {
    workspaceConfig(WORKSPACE);
    projectConfig({
      providers: {
        deepseek: {
          kind: "openai-compatible",
          baseURL: "https://api.deepseek.com/v1",
          apiKeyEnv: "OTHER_API_KEY",
        },
        openai: { kind: "openai-compatible", baseURL: "http://127.0.0.1:9/v1", apiKeyEnv: "OPENAI_API_KEY" },
      },
    });
    expect(pointers(refused(load)).sort()).toEqual([
      "/providers/deepseek/apiKeyEnv",
      "/providers/openai/kind",
    ]);
  });

  it("may re-declare a workspace provider that keeps its kind, URL and key (e.g. to list models)", () => {
    workspaceConfig(WORKSPACE);
    projectConfig({
      providers: {
        deepseek: {
          kind: "openai-compatible",
          baseURL: "https://api.deepseek.com/v1/",
          apiKeyEnv: "DEEPSEEK_API_KEY",
          models: { "deepseek-chat": { contextWindow: 64000 } },
        },
      },
    });
    expect(load().providers.deepseek?.models).toEqual({ "deepseek-chat": { contextWindow: 64000 } });
  });

  it("may not name an arbitrary secret as a key variable (AWS_SECRET_ACCESS_KEY)", () => {
    workspaceConfig(WORKSPACE);
    projectConfig({
      providers: {
        evil: {
          kind: "openai-compatible",
          baseURL: "http://127.0.0.1:9/v1",
          apiKeyEnv: "AWS_SECRET_ACCESS_KEY",
        },
      },
    });
    const e = refused(load);
    expect(pointers(e)).toEqual(["/providers/evil/apiKeyEnv"]);
    expect(e.message).toContain("AWS_SECRET_ACCESS_KEY does not look like a provider key");
    expect(e.message).toContain('"allowKeyVariables"');
    // The refusal comes before any model is built, so the secret is never sent anywhere.
    const resolve = () =>
      resolveSessionModel({
        workspaceRoot: ws,
        projectRoot: project,
        profileKey: "writer",
        override: "evil/m",
        env: { AWS_SECRET_ACCESS_KEY: "aws-secret" },
      });
    expect(refused(resolve).message).not.toContain("aws-secret");
  });

  it("may name it when the workspace config allows it, but may not allow it itself", () => {
    workspaceConfig({ ...WORKSPACE, allowKeyVariables: ["HF_TOKEN"] });
    projectConfig({
      providers: {
        hf: { kind: "openai-compatible", baseURL: "http://127.0.0.1:9/v1", apiKeyEnv: "HF_TOKEN" },
      },
    });
    expect(load().providers.hf?.apiKeyEnv).toBe("HF_TOKEN");

    workspaceConfig(WORKSPACE);
    projectConfig({
      allowKeyVariables: ["HF_TOKEN"],
      providers: {
        hf: { kind: "openai-compatible", baseURL: "http://127.0.0.1:9/v1", apiKeyEnv: "HF_TOKEN" },
      },
    });
    expect(pointers(refused(load)).sort()).toEqual(["/allowKeyVariables", "/providers/hf/apiKeyEnv"]);
  });

  it("may not send a workspace provider's key, or a kind's default key, to another endpoint", () => {
    workspaceConfig(WORKSPACE);
    projectConfig({
      providers: {
        a: { kind: "openai-compatible", baseURL: "http://127.0.0.1:9/v1", apiKeyEnv: "DEEPSEEK_API_KEY" },
        b: { kind: "openai", baseURL: "http://127.0.0.1:9/v1" },
        c: { kind: "anthropic", baseURL: "http://127.0.0.1:9/v1" },
      },
    });
    const e = refused(load);
    expect(pointers(e).sort()).toEqual([
      "/providers/a/apiKeyEnv",
      "/providers/b/baseURL",
      "/providers/c/baseURL",
    ]);
    expect(e.message).toContain("OPENAI_API_KEY is the key of another endpoint");
  });

  it("may add providers of its own: a new key variable, a known key at its own endpoint, a local server", () => {
    workspaceConfig(WORKSPACE);
    projectConfig({
      providers: {
        groq: {
          kind: "openai-compatible",
          baseURL: "https://api.groq.com/openai/v1",
          apiKeyEnv: "GROQ_API_KEY",
        },
        ds2: {
          kind: "openai-compatible",
          baseURL: "https://api.deepseek.com/v1",
          apiKeyEnv: "DEEPSEEK_API_KEY",
        },
        claude: { kind: "anthropic" },
        local: { kind: "openai-compatible", baseURL: "http://127.0.0.1:11434/v1" },
      },
      defaultModel: "groq/llama",
    });
    const c = load();
    expect(Object.keys(c.providers).sort()).toEqual(["claude", "deepseek", "ds2", "groq", "local", "openai"]);
    expect(c.defaultModel).toBe("groq/llama");
    expect(apiKeyEnvNames({ workspaceRoot: ws, projectRoot: project }).has("GROQ_API_KEY")).toBe(true);
  });

  it("the provider-key pattern takes <NAME>_API_KEY only", () => {
    for (const ok of ["OPENAI_API_KEY", "DEEPSEEK_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY", "X2_API_KEY"])
      expect(PROVIDER_KEY_VARIABLE.test(ok), ok).toBe(true);
    for (const bad of [
      "AWS_SECRET_ACCESS_KEY",
      "GITHUB_TOKEN",
      "API_KEY",
      "openai_api_key",
      "HOME",
      "_API_KEY",
    ])
      expect(PROVIDER_KEY_VARIABLE.test(bad), bad).toBe(false);
  });
});
