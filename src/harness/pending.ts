import type { PendingView } from "./events.js";
import type { SessionStore, ToolCall } from "./store/index.js";

/**
 * The view of a suspended call that events, the CLI, the API and `nbook run --json` show: the id
 * of the request entry recorded for it (the approval id), what it waits for, the call, and what the
 * user is shown.
 */
export function pendingView(
  request: { id: string; kind: PendingView["kind"] },
  call: ToolCall,
  preview: string,
): PendingView {
  return {
    approvalId: request.id,
    kind: request.kind,
    callId: call.id,
    tool: call.key,
    input: call.input,
    preview,
  };
}

/**
 * The call the session is waiting on, if any. An approval already decided whose call has no
 * result (the process died while running it) waits on nothing: the next invocation closes it.
 */
export function waitingOn(store: SessionStore, sessionId: string): PendingView | null {
  const calls = store.pendingToolCalls(sessionId);
  if (!calls.length) return null;
  const open = new Map(calls.map((c) => [c.call.id, c.call]));
  const path = store.sinceLastAssistant(sessionId);
  for (let i = path.length - 1; i >= 0; i--) {
    const e = path[i];
    if (e.kind === "approval_request" && open.has(e.data.callId)) {
      if (store.approval(e.id).status !== "pending") return null;
      return pendingView({ id: e.id, kind: e.data.kind }, open.get(e.data.callId)!, e.data.preview.text);
    }
    if (e.kind === "user_input_request" && open.has(e.data.callId)) {
      const question = [e.data.question, ...(e.data.choices ?? []).map((c, n) => `  ${n + 1}. ${c}`)];
      return pendingView({ id: e.id, kind: "user_input" }, open.get(e.data.callId)!, question.join("\n"));
    }
    if (e.kind === "assistant") break;
  }
  return null;
}
