import type { AssistantModelMessage, ModelMessage, ToolModelMessage } from "ai";
import type { Mode } from "../tools/types.js";
import type { TaskItem } from "./events.js";
import { modeReminder } from "./modes.js";
import type { Entry } from "./store/schema.js";
import { formatTasks } from "./tasks.js";

/** What the model sees for one call: the system prompt and the message history. */
export interface ModelContext {
  system: string;
  messages: ModelMessage[];
}

/** What the history alone says about the session state at the leaf. */
export interface PathState {
  tasks: TaskItem[];
  /** True when the mode changed after the model's last answer (show the full mode text). */
  modeChangedSinceAnswer: boolean;
  /** The latest compaction summary on the path, if any. */
  summary: string | null;
  /** Entries the model sees verbatim (after the latest compaction's cut). */
  visible: Entry[];
}

const STEER_PREFIX = "[The user sent this while you were working; take it into account now]\n";

/** Reduce the active path (root → leaf) to the state the context needs, in one pass. */
export function readPath(path: readonly Entry[]): PathState {
  let tasks: TaskItem[] = [];
  let lastModeChange = -1;
  let lastAnswer = -1;
  let summary: string | null = null;
  let visibleFrom = 0;
  path.forEach((e, i) => {
    if (e.kind === "task_list") tasks = e.data.tasks;
    else if (e.kind === "mode_change") lastModeChange = i;
    else if (e.kind === "assistant") lastAnswer = i;
    else if (e.kind === "compaction") {
      summary = e.data.summary;
      const kept = e.data.firstKeptEntryId ? path.findIndex((x) => x.id === e.data.firstKeptEntryId) : -1;
      visibleFrom = kept >= 0 ? kept : i + 1;
    }
  });
  return {
    tasks,
    modeChangedSinceAnswer: lastModeChange > lastAnswer,
    summary,
    visible: path.slice(visibleFrom),
  };
}

/** The system prompt: the profile's prompt, then the mode, the task list and any summary of older history. */
export function buildSystem(profilePrompt: string, mode: Mode, state: PathState): string {
  const parts = [profilePrompt, `## Mode\n${modeReminder(mode, state.modeChangedSinceAnswer)}`];
  if (state.tasks.length)
    parts.push(`## Task list (task_create / task_set_status)\n${formatTasks(state.tasks)}`);
  if (state.summary) parts.push(`## Summary of the earlier conversation\n${state.summary}`);
  return parts.join("\n\n");
}

/** Turn the visible entries into AI SDK messages; the store guarantees every call has a result before the next step. */
export function toMessages(entries: readonly Entry[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const e of entries) {
    if (e.kind === "user") {
      out.push({
        role: "user",
        content: e.data.intent === "steer" ? STEER_PREFIX + e.data.text : e.data.text,
      });
    } else if (e.kind === "assistant") {
      const content: AssistantModelMessage["content"] = [];
      if (e.data.text) content.push({ type: "text", text: e.data.text });
      for (const c of e.data.toolCalls) {
        content.push({ type: "tool-call", toolCallId: c.id, toolName: c.key, input: c.input ?? {} });
      }
      if (content.length) out.push({ role: "assistant", content });
    } else if (e.kind === "tool_result") {
      const part: ToolModelMessage["content"][number] = {
        type: "tool-result",
        toolCallId: e.data.callId,
        toolName: e.data.key,
        output: e.data.ok
          ? { type: "text", value: e.data.text }
          : {
              type: "error-text",
              value: `Error [${e.data.error?.code ?? "internal"}]: ${e.data.error?.message ?? e.data.text}`,
            },
      };
      const last = out[out.length - 1];
      if (last?.role === "tool") last.content.push(part);
      else out.push({ role: "tool", content: [part] });
    }
  }
  return out;
}
