import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Workspace } from "../../src/workspace/workspace.js";
import { NBOOK_BIN, runNbookInProcess } from "../helpers.js";

let server: Server;
let dir: string;
const summarizerPrompts: string[] = [];

function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  const usage = finish
    ? { usage: { prompt_tokens: 500, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 100 } } }
    : {};
  return `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: "stub", ...usage, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => {
      raw += d;
    });
    req.on("end", () => {
      const body = JSON.parse(raw) as { stream?: boolean; messages: { role: string; content: string }[] };
      if (!body.stream) {
        // The summarizer (a plain generate call).
        summarizerPrompts.push(body.messages[0].content);
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            id: "s",
            object: "chat.completion",
            created: 0,
            model: "stub",
            choices: [
              {
                index: 0,
                message: { role: "assistant", content: "Mara reached the harbour in her grey coat." },
                finish_reason: "stop",
              },
            ],
            usage: { prompt_tokens: 50, completion_tokens: 10 },
          }),
        );
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(chunk({ role: "assistant", content: "She came." }));
      res.write(chunk({}, "stop"));
      res.end("data: [DONE]\n\n");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  dir = mkdtempSync(join(tmpdir(), "nbook-calls-cli-"));
  const ws = Workspace.init(dir);
  const project = ws.createProject("novel");
  writeFileSync(join(project.root, "lorebook", "mara.md"), "---\nkeys: [Mara]\n---\n# Mara\nA smuggler.\n");
  writeFileSync(join(project.root, "lorebook", "bad.md"), "---\nkeys: [x\n---\n");
  ws.close();
  writeFileSync(
    join(dir, ".nbook", "config.json"),
    JSON.stringify({
      providers: { local: { kind: "openai-compatible", baseURL, models: { "gpt-4o-mini": {} } } },
      defaultModel: "local/gpt-4o-mini",
    }),
  );
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

/** `nbook` as its own process, with `input` on stdin, while this process's server answers it. */
function spawnNbook(args: string[], input: string): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(NBOOK_BIN, args, { cwd: dir, env: process.env });
    let stdout = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.on("close", (status) => resolve({ status, stdout }));
    child.stdin.end(input);
  });
}

describe("nbook sessions context, sessions show and chat's /compact and status line", () => {
  it("shows what the call was sent, the canon and why, the broken lorebook file, usage and cost", async () => {
    const run = await runNbookInProcess(["run", "--project", "novel", "Mara walks in"], { cwd: dir });
    expect(run.status).toBe(0);
    const ctx = await runNbookInProcess(["sessions", "context", "1"], { cwd: dir });
    expect(ctx.status).toBe(0);
    expect(ctx.stdout).toContain("Sections sent (tokens: o200k):");
    expect(ctx.stdout).toMatch(/canon \(lorebook\)\s+\d+/);
    expect(ctx.stdout).toContain("+ lorebook/mara.md");
    expect(ctx.stdout).toContain('key "Mara" in brief');
    expect(ctx.stdout).toContain("! lorebook/bad.md:2:");
    // 400 fresh input at $0.15/M, 100 cached at $0.075/M, 20 output at $0.60/M (the dated default for gpt-4o-mini): $0.0000795.
    expect(ctx.stdout).toContain("in 500 (cache 100r/0w) · out 20 · $0.000079");
    expect(ctx.stdout).toContain(
      "Session total: 1 call · in 500 (cache read 100, write 0) · out 20 · $0.0001",
    );

    const json = JSON.parse(
      (await runNbookInProcess(["sessions", "context", "1", "--call", "1", "--json"], { cwd: dir })).stdout,
    );
    expect(json.call.manifest.canon.included[0].path).toBe("lorebook/mara.md");
    expect(json.usage).toMatchObject({ calls: 1, inputTokens: 500, cacheReadTokens: 100 });
    const missing = await runNbookInProcess(["sessions", "context", "1", "--call", "5"], { cwd: dir });
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain("made no model call 5");

    const show = await runNbookInProcess(["sessions", "show", "1"], { cwd: dir });
    expect(show.stdout).toContain("Usage: 1 call · in 500");
    expect(show.stdout).toContain("Project novel today (UTC): 1 call");
  });

  it("/compact [focus] summarises now, shows the summary, and the transcript keeps it", async () => {
    const chat = await spawnNbook(
      ["chat", "--session", "1", "--project", "novel"],
      "/compact the grey coat\n/usage\nAnd then?\n/exit\n",
    );
    expect(chat.stdout).toContain(
      "Summary of the earlier conversation:\nMara reached the harbour in her grey coat.",
    );
    expect(summarizerPrompts.at(-1)).toContain("keep in particular: the grey coat");
    // The summariser's request is a model call of the session too (50 in, 10 out).
    expect(chat.stdout).toMatch(/── session: 2 calls · in 550 .*│ novel today: \$0\.0001/);
    expect(chat.stdout).toMatch(/── session: 3 calls/);
    const show = await runNbookInProcess(["sessions", "show", "1"], { cwd: dir });
    expect(show.stdout).toContain(
      "history compacted; the summary the model now works from:\n  │ Mara reached the harbour in her grey coat.",
    );
  });
});
