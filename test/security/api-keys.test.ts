import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agentDbPath, exportJsonl } from "../../src/harness/store/index.js";
import { REDACTED } from "../../src/models/redact.js";
import { type HarnessFixture, harnessFixture } from "../harness-fixture.js";
import { runNbook } from "../helpers.js";

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
  const run = (command: string) => {
    const r = runNbook(
      [
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
      { cwd: fx.dir, env: { NB_REDTEAM_KEY: KEY, OPENAI_API_KEY: DEFAULT_KEY } },
    );
    expect(r.status).toBe(0);
    return { raw: r.stdout, out: JSON.parse(r.stdout) as { ok: boolean; text: string } };
  };

  it("no process the shell can read holds a key: not its parent's /proc environ, not any /proc entry, not env", () => {
    const config = JSON.parse(readFileSync(join(fx.workspace.nbookDir, "config.json"), "utf8"));
    expect(config.providers.local.apiKeyEnv).toBe("NB_REDTEAM_KEY");
    const { raw, out } = run(
      // The parent's environment comes last: output past 50 KiB keeps only its tail.
      "cat /proc/[0-9]*/environ | tr '\\0' '\\n'; env; echo \"B64:$(base64 -w0 /proc/$PPID/environ)\"; echo after",
    );
    expect(out.ok).toBe(true);
    expect(out.text).toContain("after");
    const b64 = /B64:([A-Za-z0-9+/=]*)/.exec(out.text)?.[1] ?? "";
    const parentEnv = Buffer.from(b64, "base64").toString("latin1");
    for (const text of [raw, parentEnv]) {
      for (const secret of [KEY, DEFAULT_KEY, "NB_REDTEAM_KEY", "OPENAI_API_KEY"])
        expect(text).not.toContain(secret);
      // Nothing had to be masked: the keys never reached the command at all.
      expect(text).not.toContain(REDACTED);
    }
    // What the shell's parent does hold: the sandbox's own allowlisted environment.
    expect(parentEnv).toContain("NBOOK_PROJECT_ROOT=/project");
  });

  it("a key that a command finds elsewhere (a project file) is still masked in the output", () => {
    writeFileSync(join(fx.project.root, "leaked.txt"), `token=${KEY}\n`);
    const { raw, out } = run("cat leaked.txt");
    expect(out.text).toContain(`token=${REDACTED}`);
    expect(raw).not.toContain(KEY);
  });
});
