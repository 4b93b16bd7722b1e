import type {
  LanguageModelV3Message,
  LanguageModelV3TextPart,
  LanguageModelV3ToolCallPart,
  LanguageModelV3ToolResultPart,
} from "@ai-sdk/provider";
import { payloadOf } from "../collab/payload.js";
import type { Mode } from "../core/modes.js";
import { modeReminder } from "../core/modes.js";
import { fenceUntrusted, neutraliseReminderTags } from "../core/untrusted.js";
import { formatTasks } from "../tasks/list.js";
import { LOAD_TOOLS } from "../tools/on-demand.js";
import type { TaskItem } from "./events.js";
import type { Attachment, Entry } from "./store/schema.js";

/** What the history alone says about the session state at the leaf. */
export interface PathState {
  tasks: TaskItem[];
  /**
   * True when the model has not answered since the mode was set, by a change or at the session's
   * start (show the full mode text).
   */
  modeChangedSinceAnswer: boolean;
  /** The latest compaction summary on the path, if any. */
  summary: string | null;
  /** Entries the model sees verbatim (after the latest compaction's cut). */
  visible: Entry[];
  /**
   * The payload of the latest invocation that carried one (its message's input block): what tools
   * bound to the invocation (the writer's target file) hold it to. nbook's own follow-ups carry none.
   */
  payload: Readonly<Record<string, unknown>> | null;
  /** The entry id of the latest user message: the turn the next calls belong to (null: none yet). */
  turn: string | null;
  /** The on-demand tool sets a successful `load_tools` call in the visible history loaded. */
  loadedSets: ReadonlySet<string>;
}

const STEER_PREFIX = "[The user sent this while you were working; take it into account now]\n";

/** Reduce the active path (root → leaf) to the state the context needs, in one pass. */
export function readPath(path: readonly Entry[]): PathState {
  let tasks: TaskItem[] = [];
  let lastModeChange = -1;
  let lastAnswer = -1;
  let summary: string | null = null;
  let visibleFrom = 0;
  let payload: Readonly<Record<string, unknown>> | null = null;
  let turn: string | null = null;
  path.forEach((e, i) => {
    if (e.kind === "user") turn = e.id;
    if (e.kind === "task_list") tasks = e.data.tasks;
    else if (e.kind === "user" && e.data.intent !== "system") payload = payloadOf(e.data.text) ?? payload;
    else if (e.kind === "mode_change") lastModeChange = i;
    else if (e.kind === "assistant") lastAnswer = i;
    else if (e.kind === "compaction") {
      summary = e.data.summary;
      const kept = e.data.firstKeptEntryId ? path.findIndex((x) => x.id === e.data.firstKeptEntryId) : -1;
      visibleFrom = kept >= 0 ? kept : i + 1;
    }
  });
  const visible = path.slice(visibleFrom);
  return {
    tasks,
    modeChangedSinceAnswer: lastAnswer < 0 || lastModeChange > lastAnswer,
    summary,
    visible,
    payload,
    turn,
    loadedSets: loadedSets(visible),
  };
}

/** The sets named by the `load_tools` calls that succeeded in these entries (a compacted call no longer counts). */
function loadedSets(entries: readonly Entry[]): Set<string> {
  const asked = new Map<string, unknown>();
  const out = new Set<string>();
  for (const e of entries) {
    if (e.kind === "assistant") {
      for (const c of e.data.toolCalls) if (c.key === LOAD_TOOLS) asked.set(c.id, c.input);
    } else if (e.kind === "tool_result" && e.data.ok && asked.has(e.data.callId)) {
      const sets = (asked.get(e.data.callId) as { sets?: unknown } | null)?.sets;
      if (Array.isArray(sets)) for (const s of sets) if (typeof s === "string") out.add(s);
    }
  }
  return out;
}

/**
 * The system prompt: the profile's prompt, then the mode (null for a profile the mode cannot stop,
 * see modeGates), the task list and any summary of older history.
 */
export function buildSystem(profilePrompt: string, mode: Mode | null, state: PathState): string {
  const parts = [profilePrompt];
  if (mode) parts.push(`## Mode\n${modeReminder(mode, state.modeChangedSinceAnswer)}`);
  if (state.tasks.length)
    parts.push(`## Task list (task_create / task_set_status)\n${formatTasks(state.tasks)}`);
  // The summary is a model's retelling of the history, tool output included.
  if (state.summary)
    parts.push(`## Summary of the earlier conversation\n${neutraliseReminderTags(state.summary)}`);
  return parts.join("\n\n");
}

/** One `@`-mention's context as the model reads it: a line saying what it is, then its text fenced. */
function attachmentText(a: Attachment): string {
  const cut = a.truncated ? " (cut to its first part)" : "";
  // The ref (a path or an id the server checked) is quoted; the label and text are data, fenced.
  const body = `${a.label}\n\n${a.text}`;
  return `The user attached ${a.kind} ${JSON.stringify(a.ref)}${cut}:\n${fenceUntrusted(`${a.kind}-mention`, body)}`;
}

/** What one entry contributes to the prompt: a message, a tool result (grouped into a tool message), or nothing. */
type EntryMessage = LanguageModelV3Message | LanguageModelV3ToolResultPart | null;

// Entries never change, so each is converted once and reused by every later step (and run) that shows it.
const converted = new WeakMap<Entry, EntryMessage>();

function toEntryMessage(e: Entry): EntryMessage {
  if (e.kind === "user") {
    // Only nbook's own follow-ups (intent system) are reminders: a prompt may be another agent's
    // message (invoke_agent) or a workflow's, and cannot open one.
    const said = e.data.intent === "system" ? e.data.text : neutraliseReminderTags(e.data.text);
    const text = e.data.intent === "steer" ? STEER_PREFIX + said : said;
    const attached = (e.data.attachments ?? []).map(attachmentText);
    return { role: "user", content: [{ type: "text", text: [text, ...attached].join("\n\n") }] };
  }
  if (e.kind === "assistant") {
    const content: (LanguageModelV3TextPart | LanguageModelV3ToolCallPart)[] = [];
    if (e.data.text) content.push({ type: "text", text: e.data.text });
    for (const c of e.data.toolCalls) {
      content.push({ type: "tool-call", toolCallId: c.id, toolName: c.key, input: c.input ?? {} });
    }
    return content.length ? { role: "assistant", content } : null;
  }
  if (e.kind === "tool_result") {
    return {
      type: "tool-result",
      toolCallId: e.data.callId,
      toolName: e.data.key,
      // A tool's output (a page, a file, a command's output) cannot open or close a reminder.
      output: e.data.ok
        ? { type: "text", value: neutraliseReminderTags(e.data.text) }
        : {
            type: "error-text",
            value: neutraliseReminderTags(
              `Error [${e.data.error?.code ?? "internal"}]: ${e.data.error?.message ?? e.data.text}`,
            ),
          },
    };
  }
  return null;
}

/**
 * Turn the visible entries into provider prompt messages; consecutive tool results share one tool
 * message. The store guarantees every call has a result before the next step.
 */
export function toMessages(entries: readonly Entry[]): LanguageModelV3Message[] {
  const out: LanguageModelV3Message[] = [];
  let results: LanguageModelV3ToolResultPart[] | null = null;
  for (const e of entries) {
    let m = converted.get(e);
    if (m === undefined) {
      m = toEntryMessage(e);
      converted.set(e, m);
    }
    if (m === null) continue;
    if ("role" in m) {
      out.push(m);
      results = null;
    } else if (results) results.push(m);
    else {
      results = [m];
      out.push({ role: "tool", content: results });
    }
  }
  return out;
}
