import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PRESET_NAMES, PRESETS } from "../../src/models/presets.js";
import { STARTER_CONFIG } from "../../src/workspace/starter-config.js";
import { runNbookInProcess } from "../helpers.js";

/**
 * Loopback stand-ins for the three wire protocols the presets speak: OpenAI-compatible
 * /chat/completions, OpenAI /responses and Anthropic /messages. Each answers a request that offers
 * tools with a call of the first tool, streamed in two pieces; a model named "no-tools" is refused
 * the way Ollama refuses a model without tool support.
 */
const seen: { url: string; auth?: string; apiKey?: string; body: { model: string; tools?: unknown[] } }[] =
  [];
let server: Server;
let origin: string;

const data = (o: object) => `data: ${JSON.stringify(o)}\n\n`;
const event = (type: string, o: object) => `event: ${type}\n${data({ type, ...o })}`;

function chat(body: { model: string; tools?: { function: { name: string } }[] }): string {
  const c = (delta: object, finish: string | null = null) =>
    data({
      id: "c",
      object: "chat.completion.chunk",
      created: 0,
      model: body.model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  if (!body.tools)
    return `${c({ role: "assistant", content: "o" })}${c({ content: "k" })}${c({}, "stop")}data: [DONE]\n\n`;
  const name = body.tools[0]!.function.name;
  return [
    c({
      role: "assistant",
      tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name, arguments: '{"word":' } }],
    }),
    c({ tool_calls: [{ index: 0, function: { arguments: '"ok"}' } }] }),
    c({}, "tool_calls"),
    "data: [DONE]\n\n",
  ].join("");
}

function responses(body: { model: string; tools?: { name: string }[] }): string {
  const name = body.tools?.[0]?.name ?? "none";
  const item = { type: "function_call", id: "fc_1", call_id: "call_1", name, arguments: "" };
  return [
    data({ type: "response.created", response: { id: "r1", created_at: 0, model: body.model } }),
    data({ type: "response.output_item.added", output_index: 0, item }),
    data({
      type: "response.function_call_arguments.delta",
      item_id: "fc_1",
      output_index: 0,
      delta: '{"word":',
    }),
    data({
      type: "response.function_call_arguments.delta",
      item_id: "fc_1",
      output_index: 0,
      delta: '"ok"}',
    }),
    data({
      type: "response.output_item.done",
      output_index: 0,
      item: { ...item, arguments: '{"word":"ok"}', status: "completed" },
    }),
    data({ type: "response.completed", response: { usage: { input_tokens: 30, output_tokens: 5 } } }),
  ].join("");
}

function messages(body: { model: string; tools?: { name: string }[] }): string {
  const name = body.tools?.[0]?.name ?? "none";
  return [
    event("message_start", {
      message: {
        id: "m1",
        type: "message",
        role: "assistant",
        model: body.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 30, output_tokens: 1 },
      },
    }),
    event("content_block_start", {
      index: 0,
      content_block: { type: "tool_use", id: "tu_1", name, input: {} },
    }),
    event("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: '{"word":' } }),
    event("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: '"ok"}' } }),
    event("content_block_stop", { index: 0 }),
    event("message_delta", {
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { output_tokens: 5 },
    }),
    event("message_stop", {}),
  ].join("");
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => {
      raw += d;
    });
    req.on("end", () => {
      const body = JSON.parse(raw);
      const url = req.url ?? "";
      seen.push({
        url,
        auth: req.headers.authorization,
        apiKey: req.headers["x-api-key"] as string | undefined,
        body,
      });
      if (body.model === "no-tools" && body.tools) {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            error: {
              message: "registry.ollama.ai/library/no-tools does not support tools",
              type: "api_error",
            },
          }),
        );
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(
        url.endsWith("/messages")
          ? messages(body)
          : url.endsWith("/responses")
            ? responses(body)
            : chat(body),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  home = mkdtempSync(join(tmpdir(), "nbook-connect-"));
  ws = join(home, "ws");
  expect((await nbook(["init", ws])).status).toBe(0);
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(home, { recursive: true, force: true });
});

let home: string;
let ws: string;
function nbook(args: string[], env: Record<string, string> = {}) {
  return runNbookInProcess(args, { cwd: home, env: { NBOOK_WORKSPACE: "", ...env } });
}

/** Every preset's key variable set to a test value (none is a real key). */
const KEYS = Object.fromEntries(
  Object.values(PRESETS).flatMap((p) =>
    "apiKeyEnv" in p.provider ? [[p.provider.apiKeyEnv, `test-${p.provider.apiKeyEnv}`]] : [],
  ),
);

describe("nbook models add <preset> and models test", () => {
  it.each(PRESET_NAMES)("%s: the preset's config calls a model with tools end to end", async (preset) => {
    const add = await nbook(
      [
        "models",
        "add",
        preset,
        "--workspace",
        ws,
        "--base-url",
        `${origin}/v1`,
        "--model",
        "m-1",
        "--default",
        "--replace",
        "--json",
      ],
      KEYS,
    );
    expect(add.status, add.stderr).toBe(0);
    const before = seen.length;
    const r = await nbook(["models", "test", `${preset}/m-1`, "--workspace", ws, "--json"], KEYS);
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, toolCalls: "yes", streamed: true, error: null });
    const req = seen[before]!;
    expect(req.body.model).toBe("m-1");
    const p = PRESETS[preset].provider;
    const key = "apiKeyEnv" in p ? `test-${p.apiKeyEnv}` : undefined;
    if (p.kind === "anthropic") expect(req.apiKey).toBe(key);
    else expect(req.auth).toBe(key ? `Bearer ${key}` : undefined);
    expect(req.url).toBe(
      p.kind === "anthropic"
        ? "/v1/messages"
        : p.kind === "openai"
          ? "/v1/responses"
          : "/v1/chat/completions",
    );
  });

  it("writes the preset into the config, keeps other sections, and makes its model the default", async () => {
    const config = JSON.parse(readFileSync(join(ws, ".nbook", "config.json"), "utf8"));
    // nbook init's note on how to connect a model stays, and names exactly the presets there are.
    expect(config["//"]).toEqual(STARTER_CONFIG["//"]);
    expect(STARTER_CONFIG["//"].join(" ")).toContain(`presets: ${PRESET_NAMES.join(", ")}`);
    expect(config.providers.gemini).toEqual({
      kind: "openai-compatible",
      baseURL: `${origin}/v1`,
      apiKeyEnv: "GEMINI_API_KEY",
      toolSchemas: "gemini",
    });
    expect(config.defaultModel).toBe(`${PRESET_NAMES.at(-1)}/m-1`);
    const again = await nbook(["models", "add", "deepseek", "--workspace", ws]);
    expect(again.status).not.toBe(0);
    expect(again.stderr).toContain('Provider "deepseek" is already in .nbook/config.json');
  });

  it("refuses an unknown preset by name, listing the presets", async () => {
    const r = await nbook(["models", "add", "gpt-nine", "--workspace", ws]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('Unknown preset "gpt-nine". Presets: openai, anthropic, deepseek, qwen');
  });

  it("names a key variable that is not set", async () => {
    await nbook([
      "models",
      "add",
      "deepseek",
      "--id",
      "ds",
      "--workspace",
      ws,
      "--base-url",
      `${origin}/v1`,
      "--key-env",
      "NB_CONNECT_UNSET_API_KEY",
    ]);
    const r = await nbook(["models", "test", "ds/deepseek-chat", "--workspace", ws]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(
      "needs its API key in the environment variable NB_CONNECT_UNSET_API_KEY, which is not set",
    );
  });

  it("says when a model cannot call tools, and that it still answers", async () => {
    await nbook([
      "models",
      "add",
      "ollama",
      "--id",
      "local",
      "--workspace",
      ws,
      "--base-url",
      `${origin}/v1`,
    ]);
    const r = await nbook(["models", "test", "local/no-tools", "--workspace", ws]);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain("tool calls  NOT SUPPORTED");
    expect(r.stdout).toContain("streaming   yes");
    expect(r.stdout).toContain("does not support tools");
    expect(r.stdout).toContain("this model cannot call tools, which NeuroBook's agents need");
  });

  it("a session on a model without tools fails at once with that reason, not a timeout", async () => {
    expect((await nbook(["project", "create", "novel", "--workspace", ws])).status).toBe(0);
    const before = seen.length;
    const r = await nbook([
      "run",
      "Hello",
      "--model",
      "local/no-tools",
      "--workspace",
      ws,
      "--project",
      "novel",
      "--json",
    ]);
    expect(r.status).not.toBe(0);
    expect(r.stdout + r.stderr).toContain("does not support tools (this model cannot call tools");
    // Not retried: asking again cannot give the model tools.
    expect(seen.length - before).toBe(1);
  });
});
