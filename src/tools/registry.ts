import { z } from "zod";
import type { AnyTool, ToolBinding } from "./types.js";

/** The JSON Schema and description a model sees for one tool. */
export interface ToolSpec {
  key: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** A set of tools by key. Registering a key twice is an error, never a silent overwrite. */
export class ToolRegistry {
  private readonly tools = new Map<string, AnyTool>();
  private readonly schemas = new Map<string, Record<string, unknown>>();

  constructor(tools: Iterable<AnyTool> = []) {
    for (const t of tools) this.register(t);
  }

  register(tool: AnyTool): void {
    if (this.tools.has(tool.key)) throw new Error(`tool registered twice: ${tool.key}`);
    this.tools.set(tool.key, tool);
  }

  get(key: string): AnyTool | undefined {
    return this.tools.get(key);
  }

  has(key: string): boolean {
    return this.tools.has(key);
  }

  keys(): string[] {
    return [...this.tools.keys()];
  }

  list(): AnyTool[] {
    return [...this.tools.values()];
  }

  /** JSON Schema of a tool's input, generated once from its zod schema. */
  inputSchema(key: string): Record<string, unknown> {
    let s = this.schemas.get(key);
    if (!s) {
      const tool = this.tools.get(key);
      if (!tool) throw new Error(`unknown tool: ${key}`);
      const { $schema: _drop, ...rest } = z.toJSONSchema(tool.input, {
        io: "input",
        unrepresentable: "any",
      }) as Record<string, unknown>;
      s = rest;
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
