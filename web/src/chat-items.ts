// What the chat shows, built two ways: from a session's stored transcript (the truth, loaded on
// open and after every run) and from live session events (drawn as they stream in between).
// Imports carry .js extensions so that this module (like markdown.ts) also loads under Node for
// the unit tests; Vite resolves them to the .ts sources.
import { callSummary, resultSummary } from "../../src/harness/summary.js";
import type { Entry, PendingView, StreamEvent } from "./api.js";

/** What an `@`-mention attached to a message, as the chat shows it. */
export interface Attached {
  kind: string;
  label: string;
  truncated: boolean;
}

export type ChatItem =
  | { kind: "user"; id: string; text: string; attached?: Attached[] }
  | { kind: "assistant"; id: string; text: string }
  | {
      kind: "tool";
      id: string;
      callId: string;
      call: string;
      result?: string;
      ok?: boolean;
      /** The unified diff a file edit made (from the stored result). */
      diff?: string;
    }
  | { kind: "approval"; id: string; pending: PendingView; settled?: "approved" | "rejected" | "answered" }
  | { kind: "note"; id: string; text: string }
  /** A run that failed (the model's or the provider's error): shown as an error, with a retry. */
  | { kind: "error"; id: string; text: string }
  /** Where the history was compacted: the summary the model works from since. */
  | { kind: "summary"; id: string; text: string };

let liveIds = 0;
const liveId = () => `live-${++liveIds}`;

/** The choices a question offers (empty: free text only) and whether an answer of one's own is taken. */
export function questionChoices(p: PendingView): { choices: string[]; freeText: boolean } {
  const input = (p.input ?? {}) as { choices?: unknown; allowFreeText?: unknown };
  const choices = Array.isArray(input.choices) ? input.choices.filter((c) => typeof c === "string") : [];
  return { choices, freeText: choices.length === 0 || input.allowFreeText !== false };
}

/**
 * Put an approval (or question) where it happened: before the card of the tool call it stops,
 * which was drawn when the call started, so that the call's result line reads after the ask.
 */
function placeAsk(items: ChatItem[], ask: ChatItem, callId: string): ChatItem[] {
  const at = items.findIndex((it) => it.kind === "tool" && it.callId === callId);
  if (at < 0) return [...items, ask];
  return [...items.slice(0, at), ask, ...items.slice(at)];
}

/** The chat items of a transcript's entries; `pending` is what the session waits on, if anything. */
export function entriesToItems(entries: Entry[], pending: PendingView | null): ChatItem[] {
  const items: ChatItem[] = [];
  const tools = new Map<string, Extract<ChatItem, { kind: "tool" }>>();
  const asks = new Map<string, Extract<ChatItem, { kind: "approval" }>>();
  for (const e of entries) {
    const { kind, data: d } = e;
    switch (kind) {
      case "user": {
        const attached = (d.attachments ?? []).map((a) => ({
          kind: a.kind,
          label: a.label,
          truncated: a.truncated,
        }));
        items.push({ kind: "user", id: e.id, text: d.text, ...(attached.length ? { attached } : {}) });
        break;
      }
      case "assistant":
        if (d.text) items.push({ kind: "assistant", id: e.id, text: d.text });
        for (const call of d.toolCalls as { id: string; key: string; input: unknown }[]) {
          const item = {
            kind: "tool" as const,
            id: `${e.id}-${call.id}`,
            callId: call.id,
            call: callSummary(call.key, call.input),
          };
          tools.set(call.id, item);
          items.push(item);
        }
        break;
      case "tool_result": {
        const tool = tools.get(d.callId);
        if (tool) {
          tool.ok = d.ok;
          tool.result = resultSummary(d as Parameters<typeof resultSummary>[0]);
          const diff = (d.details as { diff?: unknown } | undefined)?.diff;
          if (typeof diff === "string" && diff) tool.diff = diff;
        }
        break;
      }
      case "approval_request": {
        const item: ChatItem = {
          kind: "approval",
          id: e.id,
          pending: {
            approvalId: e.id,
            kind: d.kind,
            callId: d.callId,
            tool: d.key,
            input: d.input,
            preview: d.preview.text,
          },
        };
        asks.set(e.id, item);
        items.splice(0, items.length, ...placeAsk(items, item, d.callId));
        break;
      }
      case "approval_decision": {
        const ask = asks.get(d.approvalId);
        if (ask) ask.settled = d.approved ? "approved" : "rejected";
        break;
      }
      case "user_input_request": {
        const choices = d.choices ?? [];
        // As the harness's pending view puts it: the question, then its choices numbered.
        const question = [d.question, ...choices.map((c, n) => `  ${n + 1}. ${c}`)].join("\n");
        const item: ChatItem = {
          kind: "approval",
          id: e.id,
          // The question's approval id is its entry's id, as the harness reports it.
          pending: {
            approvalId: e.id,
            kind: "user_input",
            callId: d.callId,
            tool: "request_user_input",
            input: { choices: d.choices, allowFreeText: d.allowFreeText },
            preview: question,
          },
        };
        asks.set(d.callId, item);
        items.splice(0, items.length, ...placeAsk(items, item, d.callId));
        break;
      }
      case "user_input_answer": {
        const ask = asks.get(d.callId);
        if (ask) ask.settled = "answered";
        items.push({ kind: "user", id: e.id, text: d.answer });
        break;
      }
      case "mode_change":
        items.push({
          kind: "note",
          id: e.id,
          text: `${d.from} → ${d.to}${d.reason ? ` (${d.reason})` : ""}`,
        });
        break;
      case "run_end":
        // A failed run's error is its run_error entry, just before.
        if (d.status === "error" && items[items.length - 1]?.kind === "error") break;
        if (d.status !== "completed" && d.status !== "waiting")
          items.push({
            kind: d.status === "error" ? "error" : "note",
            id: e.id,
            text: `${d.status}${d.finalMessage ? `: ${d.finalMessage}` : ""}`,
          });
        break;
      case "run_error":
        items.push({ kind: "error", id: e.id, text: `${d.error.code}: ${d.error.message}` });
        break;
      case "compaction":
        items.push({ kind: "summary", id: e.id, text: d.summary });
        break;
    }
  }
  // What the session waits on must be answerable even if its entry is not on this list.
  if (pending && !items.some((it) => it.kind === "approval" && it.pending.approvalId === pending.approvalId))
    items.push({ kind: "approval", id: `pending-${pending.approvalId}`, pending });
  return items;
}

/** Fold one live session event into the chat items; returns the same array when nothing changed. */
export function applyEvent(items: ChatItem[], e: StreamEvent): ChatItem[] {
  switch (e.type) {
    case "text_delta": {
      const last = items[items.length - 1];
      if (last?.kind === "assistant")
        return [...items.slice(0, -1), { ...last, text: last.text + String(e.text) }];
      return [...items, { kind: "assistant", id: liveId(), text: String(e.text) }];
    }
    case "tool_call_start":
      return [...items, { kind: "tool", id: liveId(), callId: String(e.callId), call: String(e.summary) }];
    case "tool_call_end":
      return items.map((it) =>
        it.kind === "tool" && it.callId === e.callId
          ? { ...it, result: String(e.summary), ok: Boolean(e.ok) }
          : it,
      );
    case "approval_required":
    case "user_input_required": {
      const pending = e.pending as PendingView;
      if (items.some((it) => it.kind === "approval" && it.pending.callId === pending.callId)) return items;
      return placeAsk(items, { kind: "approval", id: liveId(), pending }, pending.callId);
    }
    case "mode_changed":
      return [...items, { kind: "note", id: liveId(), text: `${e.from} → ${e.to}` }];
    case "error": {
      const err = e.error as { code?: string; message?: string } | undefined;
      return [
        ...items,
        { kind: "error", id: liveId(), text: `${err?.code ?? "error"}: ${err?.message ?? ""}` },
      ];
    }
    default:
      return items;
  }
}
