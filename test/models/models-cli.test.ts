import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runNbookInProcess } from "../helpers.js";

const SECRET = "sk-live-7c1d-never-print-me";
let home: string;
let ws: string;

function nbook(args: string[], env: Record<string, string> = {}) {
  return runNbookInProcess(args, { cwd: home, env: { NBOOK_WORKSPACE: "", ...env } });
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "nbook-models-cli-"));
  ws = join(home, "ws");
  expect((await nbook(["init", ws])).status).toBe(0);
  expect((await nbook(["project", "create", "novel", "--workspace", ws])).status).toBe(0);
  writeFileSync(
    join(ws, ".nbook", "config.json"),
    JSON.stringify({
      providers: {
        local: {
          kind: "openai-compatible",
          baseURL: "http://127.0.0.1:11434/v1",
          models: { "qwen/qwen3-8b": { contextWindow: 32000 } },
        },
        oa: { kind: "openai", apiKeyEnv: "NB_CLI_OA_KEY" },
        claude: { kind: "anthropic", apiKeyEnv: "NB_CLI_CLAUDE_KEY" },
      },
      defaultModel: "local/qwen/qwen3-8b",
      profiles: { writer: { model: "oa/gpt-4o" } },
    }),
  );
  mkdirSync(join(ws, "novel", ".nbook"), { recursive: true });
  writeFileSync(
    join(ws, "novel", ".nbook", "config.json"),
    JSON.stringify({ profiles: { writer: { model: "claude/sonnet" } } }),
  );
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("nbook models list", () => {
  it("shows providers, models and the missing key variables, never a key value", async () => {
    const r = await nbook(["models", "list", "--workspace", ws], {
      NB_CLI_OA_KEY: SECRET,
      NB_CLI_CLAUDE_KEY: "",
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("local/qwen/qwen3-8b  (context 32000)");
    expect(r.stdout).toContain("key NB_CLI_OA_KEY set");
    expect(r.stdout).toContain("key NB_CLI_CLAUDE_KEY MISSING");
    expect(r.stdout).toContain("Missing environment variables: NB_CLI_CLAUDE_KEY");
    expect(r.stdout).toMatch(/writer\s+oa\/gpt-4o {2}\(config_profile\)/);
    expect(r.stdout).toMatch(/leader\.default\s+local\/qwen\/qwen3-8b {2}\(config_default\)/);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  it("--json applies the project's override and reports the same facts", async () => {
    const r = await nbook(["models", "list", "--workspace", ws, "--project", "novel", "--json"], {
      NB_CLI_OA_KEY: SECRET,
    });
    expect(r.status).toBe(0);
    expect(r.stdout).not.toContain(SECRET);
    const s = JSON.parse(r.stdout) as {
      providers: { id: string; key: string }[];
      profiles: { profile: string; ref: string }[];
      missingEnv: string[];
    };
    expect(s.providers.map((p) => [p.id, p.key])).toEqual([
      ["local", "not_needed"],
      ["oa", "set"],
      ["claude", "missing"],
    ]);
    expect(s.profiles.find((p) => p.profile === "writer")?.ref).toBe("claude/sonnet");
    expect(s.missingEnv).toEqual(["NB_CLI_CLAUDE_KEY"]);
  });

  it("an invalid config fails with config_error and the JSON Pointer", async () => {
    writeFileSync(
      join(ws, "novel", ".nbook", "config.json"),
      JSON.stringify({ providers: { x: { kind: "openai-compatible" } } }),
    );
    const r = await nbook(["models", "list", "--workspace", ws, "--project", "novel"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("config_error");
    expect(r.stderr).toContain("/providers/x/baseURL: required for kind openai-compatible");
  });
});
