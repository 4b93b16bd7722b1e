import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Harness } from "../../src/harness/loop.js";
import { SessionStore } from "../../src/harness/store/index.js";
import { parseModelsConfig, resolveModel } from "../../src/models/index.js";
import { tokenCounter } from "../../src/models/tokens.js";
import { ProfileCatalog } from "../../src/profiles/catalog.js";
import { toolPorts } from "../../src/runtime/ports.js";
import { createToolRegistry } from "../../src/tools/builtin.js";
import type { Project } from "../../src/workspace/project.js";
import { Workspace } from "../../src/workspace/workspace.js";

interface OpenAiBody {
  messages: {
    role: string;
    content?: string | null;
    tool_calls?: { function: { name: string; arguments: string } }[];
  }[];
  tools?: { function: { name: string; description?: string; parameters: unknown } }[];
}

const openaiSeen: OpenAiBody[] = [];
const anthropicSeen: Record<string, unknown>[] = [];
let server: Server;
let baseURL: string;

function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  const usage = finish
    ? {
        usage: {
          prompt_tokens: 100,
          completion_tokens: 7,
          total_tokens: 107,
          prompt_tokens_details: { cached_tokens: 40 },
        },
      }
    : {};
  const body = { id: "c1", object: "chat.completion.chunk", created: 0, model: "stub", ...usage };
  return `data: ${JSON.stringify({ ...body, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

function sse(event: string, data: Record<string, unknown>): string {
  return `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => {
      raw += d;
    });
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      if (req.url?.endsWith("/messages")) {
        anthropicSeen.push(JSON.parse(raw));
        const usage = {
          input_tokens: 50,
          output_tokens: 1,
          cache_read_input_tokens: 30,
          cache_creation_input_tokens: 20,
        };
        const message = { id: "m", type: "message", role: "assistant", model: "stub", content: [], usage };
        for (const part of [
          sse("message_start", { message: { ...message, stop_reason: null, stop_sequence: null } }),
          sse("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
          sse("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Done." } }),
          sse("content_block_stop", { index: 0 }),
          sse("message_delta", {
            delta: { stop_reason: "end_turn", stop_sequence: null },
            usage: { output_tokens: 6 },
          }),
          sse("message_stop", {}),
        ])
          res.write(part);
        res.end();
        return;
      }
      openaiSeen.push(JSON.parse(raw));
      res.write(chunk({ role: "assistant", content: "Written." }));
      res.write(chunk({}, "stop"));
      res.end("data: [DONE]\n\n");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

interface Setup {
  dir: string;
  workspace: Workspace;
  project: Project;
  store: SessionStore;
  harness: Harness;
}

function setup(ref: string): Setup {
  const dir = mkdtempSync(join(tmpdir(), "nbook-model-calls-"));
  const workspace = Workspace.init(dir);
  const project = workspace.createProject("novel");
  writeFileSync(
    join(project.root, "lorebook", "mara.md"),
    "---\nkeys: [Mara]\n---\n# Mara\nA smuggler with a grey coat.\n",
  );
  writeFileSync(
    join(project.root, "lorebook", "city.md"),
    "---\nkeys: [青石城]\n---\n# 青石城\n港口城市。\n",
  );
  writeFileSync(join(project.root, "AGENTS.md"), "# Novel\n\nPast tense, close third person.\n");
  const store = SessionStore.forWorkspace(workspace);
  const registry = createToolRegistry();
  const catalog = new ProfileCatalog(registry, workspace);
  const config = parseModelsConfig(
    {
      providers: {
        local: { kind: "openai-compatible", baseURL, models: { stub: {} } },
        claude: { kind: "anthropic", baseURL, apiKeyEnv: "NB_ANT" },
      },
    },
    "c",
  );
  const resolved = resolveModel(ref, config, { NB_ANT: "ant-key" });
  const harness = new Harness({
    ports: toolPorts(),
    workspace,
    store,
    registry,
    catalog,
    resolveModel: () => resolved,
    settings: { maxRetries: 0 },
  });
  return { dir, workspace, project, store, harness };
}

function writeConfig(root: string, config: unknown): void {
  mkdirSync(join(root, ".nbook"), { recursive: true });
  writeFileSync(join(root, ".nbook", "config.json"), JSON.stringify(config));
}

function teardown(s: Setup): void {
  s.store.close();
  s.workspace.close();
  rmSync(s.dir, { recursive: true, force: true });
}

describe("what each call saw: canon in the prompt and the manifest (openai-compatible)", () => {
  it("brings in the entries the brief mentions (English and Chinese) and the manifest adds up to the request", async () => {
    const s = setup("local/stub");
    try {
      const session = s.harness.createSession({ profileKey: "leader.default", project: "novel" });
      const r = await s.harness.invoke(session.id, {
        mode: "prompt",
        message: "Mara arrives in 青石城 at dusk.",
      });
      expect(r.status).toBe("completed");
      const sent = openaiSeen.at(-1)!;
      const system = sent.messages[0].content as string;
      expect(system).toContain("A smuggler with a grey coat.");
      expect(system).toContain("港口城市。");

      const [call] = s.store.calls(session.id);
      const m = call.manifest;
      expect(m.tokenizer).toBe("estimate (o200k)");
      expect(m.canon?.included.map((i) => [i.path, i.reason])).toEqual([
        ["lorebook/mara.md", { kind: "key", key: "Mara", source: "brief" }],
        ["lorebook/city.md", { kind: "key", key: "青石城", source: "brief" }],
      ]);
      const count = tokenCounter("local/stub").count;
      const systemSections = m.sections.filter((x) => x.kind !== "tools" && x.kind !== "history");
      expect(systemSections.map((x) => x.kind)).toEqual(
        expect.arrayContaining(["system", "agents_md", "mode", "canon"]),
      );
      expect(systemSections.reduce((n, x) => n + x.chars, 0)).toBe(system.length);
      const canon = m.sections.find((x) => x.kind === "canon")!;
      expect(canon.tokens).toBe(count(system.slice(system.indexOf("\n\n## Canon"))));

      const tools = m.sections.find((x) => x.kind === "tools")!;
      const toolTexts = (sent.tools ?? []).map((t) =>
        JSON.stringify({
          name: t.function.name,
          description: t.function.description,
          parameters: t.function.parameters,
        }),
      );
      expect(tools.items).toBe(toolTexts.length);
      expect(tools.chars).toBe(toolTexts.join("").length);
      expect(tools.tokens).toBe(toolTexts.reduce((n, t) => n + count(t), 0));

      const history = m.sections.filter((x) => x.kind === "history");
      const user = sent.messages.filter((x) => x.role === "user").map((x) => x.content as string);
      expect(history).toEqual([
        {
          kind: "history",
          label: "user messages",
          chars: user.join("").length,
          tokens: count(user[0]),
          items: 1,
        },
      ]);
      expect(m.totalTokens).toBe(m.sections.reduce((n, x) => n + x.tokens, 0));
    } finally {
      teardown(s);
    }
  });

  it("the off switch leaves canon out of the prompt and the manifest", async () => {
    const s = setup("local/stub");
    try {
      writeConfig(s.project.root, { canon: { enabled: false } });
      const session = s.harness.createSession({ profileKey: "leader.default", project: "novel" });
      await s.harness.invoke(session.id, { mode: "prompt", message: "Mara arrives." });
      expect(openaiSeen.at(-1)!.messages[0].content).not.toContain("A smuggler");
      expect(s.store.calls(session.id)[0].manifest.canon).toBeNull();
    } finally {
      teardown(s);
    }
  });
});

describe("what it cost: usage, prices and budgets", () => {
  it("accumulates usage and cost across calls and sessions, cache reads counted from the provider", async () => {
    const s = setup("local/stub");
    try {
      writeConfig(s.dir, {
        prices: { "local/stub": { currency: "USD", input: 1, output: 2, cacheRead: 0.5 } },
      });
      const a = s.harness.createSession({ profileKey: "leader.default", project: "novel" });
      const b = s.harness.createSession({ profileKey: "director", project: "novel" });
      await s.harness.invoke(a.id, { mode: "prompt", message: "one" });
      await s.harness.invoke(a.id, { mode: "prompt", message: "two" });
      await s.harness.invoke(b.id, { mode: "prompt", message: "three" });
      const [first] = s.store.calls(a.id);
      expect(first.usage).toEqual({
        inputTokens: 100,
        outputTokens: 7,
        cacheReadTokens: 40,
        cacheWriteTokens: 0,
      });
      expect(first.reported).toBe(true);
      // 60 fresh input at $1/M, 40 cached at $0.5/M, 7 output at $2/M.
      expect(first.cost?.currency).toBe("USD");
      expect(first.cost?.amount).toBeCloseTo(94e-6, 12);
      expect(s.store.sessionUsage(a.id)).toMatchObject({
        calls: 2,
        inputTokens: 200,
        cacheReadTokens: 80,
        outputTokens: 14,
      });
      expect(s.store.sessionUsage(a.id).usd).toBeCloseTo(188e-6, 12);
      const day = first.day;
      // The director owes a structured result: its text-only answer is reminded once, a second call.
      expect(s.store.sessionUsage(b.id).calls).toBe(2);
      expect(s.store.projectDayUsage("novel", day)).toMatchObject({
        calls: 4,
        inputTokens: 400,
        unpriced: 0,
      });
      expect(s.store.projectDayUsage("novel", day).usd).toBeCloseTo(376e-6, 12);
    } finally {
      teardown(s);
    }
  });

  it("a session budget stops a run before its call; raised, the session continues", async () => {
    const s = setup("local/stub");
    try {
      writeConfig(s.dir, { budgets: { session: { tokens: 150 } } });
      const session = s.harness.createSession({ profileKey: "leader.default", project: "novel" });
      const warnings: (string | null)[] = [];
      s.harness.bus.on((e) => {
        if (e.type === "usage") warnings.push(e.warning);
      });
      expect((await s.harness.invoke(session.id, { mode: "prompt", message: "one" })).status).toBe(
        "completed",
      );
      expect((await s.harness.invoke(session.id, { mode: "prompt", message: "two" })).status).toBe(
        "completed",
      );
      // After the second call the budget is used up: said at once, and the next run stops before its call.
      expect(warnings).toEqual([null, expect.stringContaining("used up: 214 tokens of 150 tokens")]);
      const before = openaiSeen.length;
      const stopped = await s.harness.invoke(session.id, { mode: "prompt", message: "three" });
      expect(stopped).toMatchObject({
        status: "budget_limit",
        error: { code: "limit_exceeded", message: expect.stringContaining("budgets.session.tokens") },
      });
      expect(openaiSeen.length).toBe(before);
      expect(s.store.session(session.id).status).toBe("idle");

      writeConfig(s.dir, { budgets: { session: { tokens: 400 }, warnAt: 0.5 } });
      const resumed = await s.harness.invoke(session.id, { mode: "continue" });
      expect(resumed.status).toBe("completed");
      expect(openaiSeen.length).toBe(before + 1);
      expect(warnings.at(-1)).toContain("321 tokens of the session budget of 400 tokens");
      expect(s.store.calls(session.id)).toHaveLength(3);
    } finally {
      teardown(s);
    }
  });

  it("a budget of zero allows no call, and a bad price entry is a config error with its pointer", async () => {
    const s = setup("local/stub");
    try {
      writeConfig(s.dir, { budgets: { projectDay: { usd: 0 } } });
      const session = s.harness.createSession({ profileKey: "leader.default", project: "novel" });
      const before = openaiSeen.length;
      expect((await s.harness.invoke(session.id, { mode: "prompt", message: "x" })).status).toBe(
        "budget_limit",
      );
      expect(openaiSeen.length).toBe(before);
      writeConfig(s.dir, { prices: { "local/stub": { currency: "EUR", input: 1, output: 1 } } });
      await expect(s.harness.invoke(session.id, { mode: "continue" })).rejects.toMatchObject({
        code: "config_error",
        fields: [expect.objectContaining({ pointer: "/prices/local~1stub/currency" })],
      });
    } finally {
      teardown(s);
    }
  });

  it("counts Anthropic cache reads and writes from the provider's usage", async () => {
    const s = setup("claude/claude-sonnet-4-20250514");
    try {
      const session = s.harness.createSession({ profileKey: "leader.default", project: "novel" });
      await s.harness.invoke(session.id, { mode: "prompt", message: "Mara" });
      expect(anthropicSeen).toHaveLength(1);
      const [call] = s.store.calls(session.id);
      expect(call.usage).toMatchObject({ cacheReadTokens: 30, cacheWriteTokens: 20, outputTokens: 6 });
      expect(call.cost?.currency).toBe("USD");
      expect(call.manifest.canon?.included.map((i) => i.path)).toEqual(["lorebook/mara.md"]);
    } finally {
      teardown(s);
    }
  });
});
