import { z } from "zod";
import type { ProfileCatalog } from "../profiles/catalog.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { AnyTool, DispatchResult, ToolBinding, ToolGroup } from "../tools/types.js";

/** True for a tool that only works inside a NeuroBook agent session (a task list, a run to end, a user to ask, linked agents or jobs). */
export function isSessionBound(tool: AnyTool): boolean {
  return tool.scope === "session";
}

/** The keys of the registry's session-bound tools, in registry order. */
export function sessionBoundKeys(registry: ToolRegistry): string[] {
  return registry
    .list()
    .filter(isSessionBound)
    .map((t) => t.key);
}

/** The groups all of whose tools are session-bound, in registry order. */
export function sessionBoundGroups(registry: ToolRegistry): ToolGroup[] {
  const groups = [...new Set(registry.list().map((t) => t.group))];
  return groups.filter((g) => registry.list().every((t) => t.group !== g || isSessionBound(t)));
}

/** The MCP-facing description of one tool (as tools/list answers and the listing cache stores it). */
export const McpToolInfoSchema = z.object({
  name: z.string(),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
  annotations: z.object({
    title: z.string(),
    readOnlyHint: z.boolean(),
    destructiveHint: z.boolean().optional(),
  }),
});
export type McpToolInfo = z.infer<typeof McpToolInfoSchema>;

/**
 * True when every call of the tool under this binding only reads: a read-effect tool, or one the
 * allowlist binds with `access: "readonly"` (the writer's execute_world). A per-call effect
 * (execute_sql, a read-write execute_world) may write, so it is not advertised as read-only.
 */
function readsOnly(tool: AnyTool, binding: ToolBinding): boolean {
  return tool.effect === "read" || binding.access === "readonly";
}

/** The tools a profile offers over MCP: its allowlist minus the session-bound ones, in allowlist order. */
export function mcpTools(registry: ToolRegistry, catalog: ProfileCatalog, profileKey: string): McpToolInfo[] {
  const out: McpToolInfo[] = [];
  for (const [key, binding] of catalog.allowlist(profileKey)) {
    const tool = registry.get(key);
    if (!tool || isSessionBound(tool)) continue;
    const spec = registry.spec(key, binding);
    const readOnly = readsOnly(tool, binding);
    out.push({
      name: key,
      description: spec.description,
      inputSchema: spec.inputSchema,
      annotations: { title: key, readOnlyHint: readOnly, ...(readOnly ? {} : { destructiveHint: true }) },
    });
  }
  return out;
}

/** Turn a dispatch result into an MCP tool result: errors are results with isError, never protocol errors. */
export function toMcpResult(r: DispatchResult) {
  if (r.ok) {
    return {
      content: [{ type: "text" as const, text: r.text }],
      ...(r.details !== undefined ? { structuredContent: { details: r.details } } : {}),
    };
  }
  // The message already lists field errors (`/path: problem`); structuredContent keeps them as data.
  return {
    isError: true,
    content: [{ type: "text" as const, text: `[${r.error.code}] ${r.error.message}` }],
    structuredContent: { error: r.error },
  };
}
