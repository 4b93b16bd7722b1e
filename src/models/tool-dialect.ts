import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FunctionTool,
  LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import { fromOpenAIStrict, toGemini, toOpenAIStrict } from "./schema-dialects.js";

/** How a provider is sent tool schemas and prompts (`toolSchemas` in a provider's config). */
export const TOOL_DIALECTS = ["plain", "openai-strict", "anthropic", "gemini"] as const;
export type ToolDialect = (typeof TOOL_DIALECTS)[number];

const EPHEMERAL = { anthropic: { cacheControl: { type: "ephemeral" } } } as const;

type Tool = NonNullable<LanguageModelV3CallOptions["tools"]>[number];

/**
 * Anthropic caches a prompt up to each `cache_control` breakpoint: one on the last tool and one on
 * the system prompt cover the fixed prefix of every turn, one on the last message lets the next
 * step reuse the history so far (four are allowed).
 */
function withCacheBreakpoints(o: LanguageModelV3CallOptions): LanguageModelV3CallOptions {
  const tools = o.tools?.map((t, i, all) =>
    i === all.length - 1 && t.type === "function"
      ? { ...t, providerOptions: { ...t.providerOptions, ...EPHEMERAL } }
      : t,
  );
  const systemAt = o.prompt.findLastIndex((m) => m.role === "system");
  const lastAt = o.prompt.length - 1;
  const prompt = o.prompt.map((m, i) =>
    i === systemAt || (i === lastAt && m.role !== "system")
      ? { ...m, providerOptions: { ...m.providerOptions, ...EPHEMERAL } }
      : m,
  );
  return { ...o, tools, prompt };
}

/** The strict form of each tool strict mode can express, and the original schemas to map calls back. */
function strictTools(tools: readonly Tool[]): { tools: Tool[]; originals: Map<string, unknown> } {
  const originals = new Map<string, unknown>();
  const out = tools.map((t): Tool => {
    if (t.type !== "function") return t;
    const r = toOpenAIStrict(t.inputSchema);
    if (!("schema" in r)) return t;
    originals.set(t.name, t.inputSchema);
    return { ...t, inputSchema: r.schema as LanguageModelV3FunctionTool["inputSchema"], strict: true };
  });
  return { tools: out, originals };
}

/** A strict call's input JSON as the tool's own schema expects it (raw text that is not JSON is kept). */
function restoreInput(originals: Map<string, unknown>, name: string, input: string): string {
  const schema = originals.get(name);
  if (schema === undefined) return input;
  try {
    return JSON.stringify(fromOpenAIStrict(schema, JSON.parse(input)));
  } catch {
    return input;
  }
}

/**
 * A model that sends its tools in a provider family's dialect: OpenAI strict function calling
 * (calls mapped back to the tools' own shape), Anthropic with prompt-cache breakpoints, or Gemini's
 * schema subset. `plain` sends them as they are.
 */
export function withToolDialect(model: LanguageModelV3, dialect: ToolDialect): LanguageModelV3 {
  if (dialect === "plain") return model;
  const prepare = (o: LanguageModelV3CallOptions) => {
    if (dialect === "anthropic")
      return { options: withCacheBreakpoints(o), originals: new Map<string, unknown>() };
    if (dialect === "gemini") {
      const tools = o.tools?.map((t) =>
        t.type === "function"
          ? { ...t, inputSchema: toGemini(t.inputSchema) as LanguageModelV3FunctionTool["inputSchema"] }
          : t,
      );
      return { options: { ...o, tools }, originals: new Map<string, unknown>() };
    }
    const strict = strictTools(o.tools ?? []);
    return { options: o.tools ? { ...o, tools: strict.tools } : o, originals: strict.originals };
  };
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    async doGenerate(o) {
      const { options, originals } = prepare(o);
      const r = await model.doGenerate(options);
      if (originals.size === 0) return r;
      const content = r.content.map(
        (c): LanguageModelV3Content =>
          c.type === "tool-call" ? { ...c, input: restoreInput(originals, c.toolName, c.input) } : c,
      );
      return { ...r, content };
    },
    async doStream(o) {
      const { options, originals } = prepare(o);
      const r = await model.doStream(options);
      if (originals.size === 0) return r;
      const stream = r.stream.pipeThrough(
        new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
          transform(part, out) {
            out.enqueue(
              part.type === "tool-call"
                ? { ...part, input: restoreInput(originals, part.toolName, part.input) }
                : part,
            );
          },
        }),
      );
      return { ...r, stream };
    },
  };
}
