import { z } from "zod";
import { modelSchema } from "./model-schema.js";
import type { AnyTool, ToolBinding } from "./types.js";

/** The JSON Schema and description a model sees for one tool. */
export interface ToolSpec {
  key: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/**
 * A set of tools by key. Registering a key twice is an error, never a silent overwrite.
 * A narrowed registry holds only some tools but still knows the keys of the others (`unloaded`), so
 * that profiles naming them validate; `has` answers for both, `get` refuses a known but unloaded key.
 */
export class ToolRegistry {
  private readonly tools = new Map<string, AnyTool>();
  private readonly schemas = new Map<string, Record<string, unknown>>();
  private readonly unloaded: ReadonlySet<string>;

  constructor(tools: Iterable<AnyTool> = [], unloaded: Iterable<string> = []) {
    for (const t of tools) this.register(t);
    this.unloaded = new Set([...unloaded].filter((k) => !this.tools.has(k)));
  }

  register(tool: AnyTool): void {
    if (this.tools.has(tool.key)) throw new Error(`tool registered twice: ${tool.key}`);
    this.tools.set(tool.key, tool);
  }

  /** The tool with this key; undefined for an unknown key, an error for one whose code was not loaded. */
  get(key: string): AnyTool | undefined {
    const tool = this.tools.get(key);
    if (!tool && this.unloaded.has(key))
      throw new Error(`tool ${key} is known but its group was not loaded into this registry`);
    return tool;
  }

  /** True when the key names a tool, held or known but not loaded. */
  has(key: string): boolean {
    return this.tools.has(key) || this.unloaded.has(key);
  }

  /** The keys of the tools this registry holds. */
  keys(): string[] {
    return [...this.tools.keys()];
  }

  /** The tools this registry holds. */
  list(): AnyTool[] {
    return [...this.tools.values()];
  }

  /** JSON Schema of a tool's input as a model is sent it (model-schema.ts), generated once from its zod schema. */
  inputSchema(key: string): Record<string, unknown> {
    let s = this.schemas.get(key);
    if (!s) {
      const tool = this.tools.get(key);
      if (!tool) throw new Error(`unknown tool: ${key}`);
      const { $schema: _drop, ...rest } = z.toJSONSchema(tool.input, {
        io: "input",
        unrepresentable: "any",
      }) as Record<string, unknown>;
      s = modelSchema(rest) as Record<string, unknown>;
      this.schemas.set(key, s);
    }
    return s;
  }

  /** The spec a model sees for a tool under a binding. */
  spec(key: string, binding: ToolBinding = {}): ToolSpec {
    const tool = this.tools.get(key);
    if (!tool) throw new Error(`unknown tool: ${key}`);
    return {
      key,
      description: tool.describe ? tool.describe(binding) : tool.description,
      inputSchema: this.inputSchema(key),
    };
  }
}
