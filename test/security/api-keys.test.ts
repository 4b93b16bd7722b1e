import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agentDbPath, exportJsonl } from "../../src/harness/store/index.js";
import { type HarnessFixture, harnessFixture } from "../harness-fixture.js";

const NBOOK = fileURLToPath(new URL("../../bin/nbook", import.meta.url));
const KEY = "sk-redteam-SECRET-4f1e9a0c77";
const DEFAULT_KEY = "sk-redteam-DEFAULT-80b3d2e1aa";
let fx: HarnessFixture;
const saved = { custom: process.env.NB_REDTEAM_KEY, openai: process.env.OPENAI_API_KEY };

beforeEach(() => {
  process.env.NB_REDTEAM_KEY = KEY;
  process.env.OPENAI_API_KEY = DEFAULT_KEY;
  fx = harnessFixture([
    { toolCalls: [{ name: "bash", input: { command: 'env; echo "k=$NB_REDTEAM_KEY o=$OPENAI_API_KEY"' } }] },
    { text: "done" },
  ]);
  const config = join(fx.workspace.nbookDir, "config.json");
  const raw = JSON.parse(readFileSync(config, "utf8"));
  raw.providers = {
    local: { kind: "openai-compatible", baseURL: "http://127.0.0.1:9/v1", apiKeyEnv: "NB_REDTEAM_KEY" },
  };
  writeFileSync(config, JSON.stringify(raw));
});

afterEach(() => {
  fx.close();
  for (const [name, value] of [
    ["NB_REDTEAM_KEY", saved.custom],
    ["OPENAI_API_KEY", saved.openai],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe("API keys through bash", () => {
  it("a command that dumps its environment sees no provider key, so none reaches the session", async () => {
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "Show me the environment" });
    expect(r.status).toBe("completed");

    const exported = exportJsonl(fx.store.session(s.id), fx.store.allEntries(s.id), fx.store.approvals(s.id));
    expect(exported).toContain("NBOOK_PROJECT_ROOT");
    expect(exported).toContain("k= o=");
    for (const key of [KEY, DEFAULT_KEY]) expect(exported).not.toContain(key);
    fx.store.close();
    for (const f of [agentDbPath(fx.workspace), `${agentDbPath(fx.workspace)}-wal`].filter(existsSync)) {
      const bytes = readFileSync(f).toString("latin1");
      for (const key of [KEY, DEFAULT_KEY]) expect(bytes).not.toContain(key);
    }
  });
});

describe("API keys through bash, from the command line", () => {
  it("a key the shell reads from its parent's environment is masked in the output", () => {
    const config = JSON.parse(readFileSync(join(fx.workspace.nbookDir, "config.json"), "utf8"));
    expect(config.providers.local.apiKeyEnv).toBe("NB_REDTEAM_KEY");
    const command = "tr '\\0' '\\n' < /proc/$PPID/environ | grep -a '^NB_REDTEAM_KEY='; echo after";
    const r = spawnSync(
      process.execPath,
      [
        NBOOK,
        "tool",
        "bash",
        "--input",
        JSON.stringify({ command }),
        "--workspace",
        fx.workspace.root,
        "--project",
        "novel",
        "--json",
      ],
      { env: { ...process.env, NB_REDTEAM_KEY: KEY }, encoding: "utf8", timeout: 60_000 },
    );
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.ok).toBe(true);
    expect(out.text).toContain("NB_REDTEAM_KEY=[redacted]");
    expect(r.stdout).not.toContain(KEY);
  });
});
