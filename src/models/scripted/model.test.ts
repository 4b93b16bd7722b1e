import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateText, jsonSchema, stepCountIs, streamText, tool } from "ai";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { NbError } from "../../core/errors.js";
import { parseScript } from "./format.js";
import { scriptedModel, scriptedModelFromFile } from "./model.js";

const readTool = tool({
  description: "read a file",
  inputSchema: jsonSchema<{ path: string }>({
    type: "object",
    properties: { path: { type: "string" } },
    required: ["path"],
  }),
  execute: async ({ path }) => `contents of ${path}`,
});

const readSchemaOnly = tool({ description: "read a file", inputSchema: readTool.inputSchema });

describe("scripted model through the AI SDK", () => {
  it("streams text in the scripted chunks and makes tool calls the SDK executes", async () => {
    const model = scriptedModel([
      { text: ["Let me ", "read ", "it."], toolCalls: [{ name: "read", input: { path: "lorebook/a.md" } }] },
      { text: "It says hello.", expect: { lastToolResult: "contents of lorebook/a.md", tools: ["read"] } },
    ]);
    const result = streamText({
      model,
      prompt: "What does a.md say?",
      tools: { read: readTool },
      stopWhen: stepCountIs(5),
    });
    const deltas: string[] = [];
    const calls: { name: string; input: unknown }[] = [];
    for await (const part of result.fullStream) {
      if (part.type === "text-delta") deltas.push(part.text);
      if (part.type === "tool-call") calls.push({ name: part.toolName, input: part.input });
      if (part.type === "error") throw part.error;
    }
    expect(deltas).toEqual(["Let me ", "read ", "it.", "It says hello."]);
    expect(calls).toEqual([{ name: "read", input: { path: "lorebook/a.md" } }]);
    const steps = await result.steps;
    expect(steps.map((s) => s.finishReason)).toEqual(["tool-calls", "stop"]);
    expect(model.remaining).toBe(0);
    expect(model.calls).toHaveLength(2);
  });

  it("answers generateText with text, tool calls and the scripted usage", async () => {
    const model = scriptedModel([
      {
        text: "two calls",
        toolCalls: [
          { name: "read", input: { path: "x" } },
          { name: "read", input: { path: "y" }, id: "mine" },
        ],
        usage: { inputTokens: 11, outputTokens: 7 },
      },
    ]);
    const r = await generateText({
      model,
      prompt: "go",
      tools: { read: readSchemaOnly },
    });
    expect(r.text).toBe("two calls");
    expect(r.toolCalls.map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([
      ["call_1_1", "read", { path: "x" }],
      ["mine", "read", { path: "y" }],
    ]);
    expect(r.usage.inputTokens).toBe(11);
    expect(r.usage.outputTokens).toBe(7);
    expect(r.finishReason).toBe("tool-calls");
  });

  it("estimates usage from the request when the script gives none", async () => {
    const model = scriptedModel([{ text: "12345678" }]);
    const r = await generateText({ model, prompt: "x".repeat(400) });
    expect(r.usage.outputTokens).toBe(2);
    expect(r.usage.inputTokens).toBeGreaterThanOrEqual(100);
  });

  it("fails clearly when the script runs out of turns", async () => {
    const model = scriptedModel([{ text: "only one" }]);
    await generateText({ model, prompt: "a" });
    const err = await generateText({ model, prompt: "b" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NbError);
    expect((err as NbError).code).toBe("limit_exceeded");
    expect((err as NbError).message).toMatch(/no turn 2.*1 turn/);
  });

  it("an error turn without text rejects the call before any output", async () => {
    const model = scriptedModel([{ error: "provider overloaded" }, { text: "recovered" }]);
    await expect(generateText({ model, prompt: "a" })).rejects.toThrow(/provider overloaded/);
    expect(model.position).toBe(1);
    expect((await generateText({ model, prompt: "again" })).text).toBe("recovered");
  });

  it("an error turn with text streams the text, then the error", async () => {
    const model = scriptedModel([{ text: ["partial ", "answer"], error: "connection reset" }]);
    const result = streamText({ model, prompt: "a", onError: () => {} });
    const seen: string[] = [];
    for await (const part of result.fullStream) {
      if (part.type === "text-delta") seen.push(`text:${part.text}`);
      if (part.type === "error") seen.push(`error:${(part.error as Error).message}`);
    }
    expect(seen).toEqual(["text:partial ", "text:answer", "error:connection reset"]);
  });

  it("a failed expectation names the turn and what was expected", async () => {
    const model = scriptedModel([{ text: "x", expect: { lastUser: "chapter two" } }]);
    const err = await generateText({ model, prompt: "write chapter one" }).catch((e: unknown) => e);
    expect((err as NbError).code).toBe("conflict");
    expect((err as NbError).message).toContain(
      'Scripted turn 1: expected the last user message to contain "chapter two"',
    );
    expect((err as NbError).message).toContain("write chapter one");
  });

  it("checks the system prompt and tools not offered", async () => {
    const model = scriptedModel([
      { text: "ok", expect: { system: "You are the writer", notTools: ["bash"] } },
      { text: "no", expect: { notTools: ["read"] } },
    ]);
    const tools = { read: readTool };
    expect((await generateText({ model, system: "You are the writer.", prompt: "a", tools })).text).toBe(
      "ok",
    );
    await expect(generateText({ model, prompt: "b", tools })).rejects.toThrow(
      /tool "read" not to be offered/,
    );
  });

  it("a waitForAbort turn streams its text and then ends only when aborted", async () => {
    const model = scriptedModel([{ text: "thinking...", waitForAbort: true }]);
    const controller = new AbortController();
    const result = streamText({ model, prompt: "a", abortSignal: controller.signal, onError: () => {} });
    const seen: string[] = [];
    for await (const part of result.fullStream) {
      seen.push(part.type);
      if (part.type === "text-delta") controller.abort();
    }
    expect(seen).toContain("text-delta");
    expect(seen).toContain("abort");
    expect(seen).not.toContain("finish-step");
  });

  it("startAt resumes a script in the middle", async () => {
    const model = scriptedModel([{ text: "one" }, { text: "two" }], { startAt: 1 });
    expect((await generateText({ model, prompt: "a" })).text).toBe("two");
    expect(() => scriptedModel([{ text: "one" }], { startAt: 3 })).toThrow(/startAt/);
  });

  it('startAt "history" picks the turn from the assistant messages already in the prompt', async () => {
    const turns = [{ text: "one" }, { text: "two" }, { text: "three" }];
    const model = scriptedModel(turns, { startAt: "history" });
    const messages = [
      { role: "user" as const, content: "a" },
      { role: "assistant" as const, content: "one" },
      { role: "user" as const, content: "b" },
    ];
    expect((await generateText({ model, messages })).text).toBe("two");
    expect((await generateText({ model, prompt: "no history now" })).text).toBe("three");
  });
});

describe("script files", () => {
  const dir = mkdtempSync(join(tmpdir(), "nb-script-"));

  it("reads YAML and JSON files", async () => {
    const yamlFile = join(dir, "s.yaml");
    writeFileSync(
      yamlFile,
      "model: demo\nturns:\n  - text: hi\n    toolCalls:\n      - name: read\n        input: { path: a.md }\n  - text: [a, b]\n",
    );
    const m = scriptedModelFromFile(yamlFile);
    expect(m.modelId).toBe("demo");
    const r = await generateText({
      model: m,
      prompt: "x",
      tools: { read: readSchemaOnly },
    });
    expect(r.toolCalls[0]?.input).toEqual({ path: "a.md" });
    const jsonFile = join(dir, "s.json");
    writeFileSync(jsonFile, JSON.stringify({ turns: [{ text: "from json" }] }));
    expect((await generateText({ model: scriptedModelFromFile(jsonFile), prompt: "x" })).text).toBe(
      "from json",
    );
  });

  it("rejects a malformed script with JSON-Pointer fields", () => {
    const file = join(dir, "bad.yaml");
    writeFileSync(
      file,
      "turns:\n  - text: 1\n  - error: boom\n    toolCalls: [{ name: read }]\n  - txt: typo\n",
    );
    try {
      scriptedModelFromFile(file);
      expect.unreachable();
    } catch (e) {
      const err = e as NbError;
      expect(err.code).toBe("invalid_input");
      const pointers = err.fields?.map((f) => f.pointer);
      expect(pointers).toContain("/turns/0/text");
      expect(pointers).toContain("/turns/1/toolCalls");
      expect(pointers).toContain("/turns/2/txt");
      expect(err.message).not.toContain(dir);
    }
  });

  it("a missing file is not_found without the host path", () => {
    const missing = join(dir, "nope.yaml");
    try {
      scriptedModelFromFile(missing);
      expect.unreachable();
    } catch (e) {
      expect((e as NbError).code).toBe("not_found");
      expect((e as NbError).message).not.toContain(dir);
    }
  });
});

describe("docs/scripted-model.md", () => {
  it("every YAML script in the documentation is valid", () => {
    const doc = readFileSync(
      fileURLToPath(new URL("../../../docs/scripted-model.md", import.meta.url)),
      "utf8",
    );
    const scripts = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
    expect(scripts.length).toBeGreaterThanOrEqual(2);
    for (const s of scripts) expect(() => parseScript(parseYaml(s))).not.toThrow();
  });
});
