import { ToolRegistry } from "./registry.js";
import type { AnyTool, ToolGroup } from "./types.js";

/** One built-in tool group: the keys of its tools, and how to load their code. */
export interface ToolGroupEntry {
  group: ToolGroup;
  keys: readonly string[];
  load(): Promise<readonly AnyTool[]>;
}

/**
 * Every built-in tool group with its keys, in the order of BUILTIN_TOOLS (a test checks that each
 * entry lists exactly what its module exports). Kept apart from the tools' code so that a command
 * running one tool loads that tool's group and nothing else: the world group alone brings QuickJS,
 * the plot group the World Engine.
 */
export const TOOL_GROUPS: readonly ToolGroupEntry[] = [
  {
    group: "files",
    keys: ["read", "write", "edit", "apply_patch", "bash", "search"],
    load: async () => (await import("./files/index.js")).fileTools,
  },
  {
    group: "control",
    keys: ["request_user_input", "switch_mode", "load_tools"],
    load: async () => (await import("./control/index.js")).controlTools,
  },
  {
    group: "collaboration",
    keys: ["create_agent", "invoke_agent", "get_agent", "get_agent_profile", "get_session", "detach_agent"],
    load: async () => (await import("./collaboration/index.js")).collaborationTools,
  },
  {
    group: "jobs",
    keys: ["list_jobs", "get_job", "cancel_job"],
    load: async () => (await import("./jobs/index.js")).jobTools,
  },
  {
    group: "workflow",
    keys: ["run_workflow", "list_workflows"],
    load: async () => (await import("./workflows/index.js")).workflowTools,
  },
  {
    group: "tasks",
    keys: ["task_create", "task_set_status"],
    load: async () => (await import("./tasks/index.js")).taskTools,
  },
  {
    group: "result",
    keys: ["report_result"],
    load: async () => (await import("./result/index.js")).resultTools,
  },
  {
    group: "sql",
    keys: ["execute_sql"],
    load: async () => (await import("./sql/index.js")).sqlTools,
  },
  {
    group: "world",
    keys: ["execute_world"],
    load: async () => (await import("./world/index.js")).worldTools,
  },
  {
    group: "plot",
    keys: [
      "get_story_tree",
      "get_story_thread",
      "get_story_scene_context",
      "get_scene_world_context",
      "get_story_chapter",
      "get_chapter_writer_brief",
      "get_story_promise",
      "get_story_decision",
      "save_story_act",
      "save_story_chapter",
      "save_story_thread",
      "save_story_scene",
      "save_story_promise",
      "save_promise_beat",
      "save_story_decision",
    ],
    load: async () => (await import("./plot/index.js")).plotTools,
  },
  {
    group: "web",
    keys: ["web_search", "web_fetch"],
    load: async () => (await import("./web/index.js")).webTools,
  },
  {
    group: "research",
    keys: ["novel_rankings", "novel_book_detail"],
    load: async () => (await import("./research/index.js")).researchTools,
  },
  {
    group: "memory",
    keys: ["subject_event_append", "subject_rag_search", "subject_memory_update"],
    load: async () => (await import("./memory/index.js")).memoryTools,
  },
];

/** The group entry holding a tool key, or undefined when no built-in tool has it. */
export function groupOfKey(key: string): ToolGroupEntry | undefined {
  return TOOL_GROUPS.find((g) => g.keys.includes(key));
}

/**
 * A registry holding the code of only the groups of `keys`, and knowing every other built-in key
 * (so profiles validate as with createToolRegistry). Unknown keys are ignored: dispatch reports them.
 */
export async function loadToolRegistry(keys: readonly string[]): Promise<ToolRegistry> {
  const wanted = TOOL_GROUPS.filter((g) => keys.some((k) => g.keys.includes(k)));
  const tools = (await Promise.all(wanted.map((g) => g.load()))).flat();
  return new ToolRegistry(
    tools,
    TOOL_GROUPS.flatMap((g) => g.keys),
  );
}
