import { describe, expect, it } from "vitest";
import { offeredTools } from "../../src/harness/tool-specs.js";
import { fromOpenAIStrict, toGemini, toOpenAIStrict } from "../../src/models/schema-dialects.js";
import { SCHEMA_FAMILIES, schemaViolations } from "../../src/models/schema-rules.js";
import { BUILTIN_PROFILES } from "../../src/profiles/builtin/index.js";
import { createToolRegistry } from "../../src/tools/builtin.js";

const registry = createToolRegistry();

/** Every tool as some profile is sent it (report_result typed by each profile's output), and every tool bare. */
function everyTool(): { label: string; name: string; schema: unknown }[] {
  const out: { label: string; name: string; schema: unknown }[] = registry
    .keys()
    .map((k) => ({ label: k, name: k, schema: registry.spec(k).inputSchema }));
  for (const p of BUILTIN_PROFILES) {
    const offered = offeredTools(registry, p);
    const all = [...offered.tools, ...[...offered.sets.values()].flatMap((b) => b.tools)];
    for (const t of all) out.push({ label: `${p.key}:${t.name}`, name: t.name, schema: t.inputSchema });
  }
  return out;
}

const TOOLS = everyTool();

describe("every tool's schema, in each provider family's shape", () => {
  it("covers every registered tool", () => {
    expect(new Set(TOOLS.map((t) => t.name))).toEqual(new Set(registry.keys()));
    expect(SCHEMA_FAMILIES).toEqual(["openai-strict", "anthropic", "gemini"]);
  });

  it.each(TOOLS)("$label: OpenAI strict (or sent non-strict, saying why)", ({ name, schema }) => {
    const strict = toOpenAIStrict(schema);
    if ("schema" in strict) expect(schemaViolations("openai-strict", name, strict.schema)).toEqual([]);
    else {
      expect(strict.reason).toMatch(/free-form keys/);
      expect(schema).toMatchObject({ type: "object" });
    }
  });

  it.each(TOOLS)("$label: Anthropic", ({ name, schema }) => {
    expect(schemaViolations("anthropic", name, schema)).toEqual([]);
  });

  it.each(TOOLS)("$label: Gemini", ({ name, schema }) => {
    expect(schemaViolations("gemini", name, toGemini(schema))).toEqual([]);
  });
});

describe("the rule checkers", () => {
  const loose = {
    type: "object",
    properties: { a: { type: ["string", "null"] }, "b-c": { type: "integer", enum: [1, 2] } },
    additionalProperties: {},
  };

  it("name what each family refuses, by pointer", () => {
    expect(schemaViolations("openai-strict", "t", loose)).toEqual(
      expect.arrayContaining(["/additionalProperties: must be false", "/required: must list a"]),
    );
    expect(schemaViolations("gemini", "t", loose)).toEqual(
      expect.arrayContaining([
        "/additionalProperties: not supported",
        "/properties/a/type: must be one type (nullable: true for null)",
        "/properties/b-c/enum: only on type string",
        "/properties/b-c: parameter name must match /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/",
      ]),
    );
    expect(schemaViolations("anthropic", "bad name", { anyOf: [] })).toEqual([
      "/name: must match /^[a-zA-Z0-9_-]{1,64}$/",
      ": the root must be type object",
    ]);
  });

  it("strict form round-trips: a null sent for an optional field is taken back out, a real null kept", () => {
    const schema = {
      type: "object",
      properties: {
        id: { type: "integer" },
        note: { type: ["string", "null"] },
        title: { type: "string" },
        refs: {
          type: "array",
          items: { type: "object", properties: { at: { type: "string" } }, additionalProperties: false },
        },
      },
      required: ["id"],
      additionalProperties: false,
    };
    const r = toOpenAIStrict(schema);
    expect("schema" in r && r.schema).toMatchObject({
      required: ["id", "note", "title", "refs"],
      properties: { title: { type: ["string", "null"] }, note: { type: ["string", "null"] } },
    });
    expect(fromOpenAIStrict(schema, { id: 1, note: null, title: null, refs: [{ at: null }] })).toEqual({
      id: 1,
      note: null,
      refs: [{}],
    });
  });
});
