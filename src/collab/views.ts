import type { Harness } from "../harness/loop.js";
import type { Entry, Session } from "../harness/store/index.js";
import type {
  AgentStatus,
  AgentSummary,
  RecentMessage,
  SessionRequest,
  SessionView,
} from "../tools/collaboration/service.js";
import { pendingOf } from "./result.js";

const SUMMARY_CHARS = 360;
const MESSAGE_CHARS = 500;
const LAST_RUN_CHARS = 300;

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** The latest run_end on a path, if any. */
function lastRunEnd(path: readonly Entry[]) {
  for (let i = path.length - 1; i >= 0; i--) {
    const e = path[i];
    if (e.kind === "run_end") return e.data;
  }
  return null;
}

/**
 * The real status of a session: running (a run here, or in another live process), waiting
 * (on the user), error (its latest run failed or hit the step limit), else idle.
 */
export function agentStatus(harness: Harness, session: Session, path?: readonly Entry[]): AgentStatus {
  if (harness.isRunning(session.id) || harness.store.liveRunner(session.id)) return "running";
  if (harness.pending(session.id)) return "waiting";
  const end = lastRunEnd(path ?? harness.store.activePath(session.id));
  return end && (end.status === "error" || end.status === "step_limit" || end.status === "budget_limit")
    ? "error"
    : "idle";
}

/** One agent as get_agent and get_session describe it. */
export function agentSummary(harness: Harness, sessionId: string): AgentSummary {
  const session = harness.store.session(sessionId);
  const path = harness.store.activePath(sessionId);
  const out: AgentSummary = {
    sessionId: session.id,
    profileKey: session.profileKey,
    title: session.title,
    project: session.project,
    mode: session.mode,
    status: agentStatus(harness, session, path),
    parentSessionId: session.parentSessionId,
  };
  const end = lastRunEnd(path);
  if (end) out.lastRun = { status: end.status, finalMessage: clip(end.finalMessage ?? "", LAST_RUN_CHARS) };
  const pending = harness.pending(sessionId);
  if (pending) out.pending = pendingOf(pending);
  return out;
}

function messageOf(e: Entry): RecentMessage | null {
  if (e.kind === "user") return { role: "user", text: e.data.text, timestamp: e.createdAt };
  if (e.kind === "assistant" && e.data.text)
    return { role: "assistant", text: e.data.text, timestamp: e.createdAt };
  if (e.kind === "tool_result")
    return { role: "toolResult", text: `${e.data.key}: ${e.data.text}`, timestamp: e.createdAt };
  return null;
}

/** Rough tokens of a text (4 characters a token), for get_session's budget. */
function tokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** What get_session shows of a session: metadata, a summary, usage, its agents, recent messages. */
export function sessionView(harness: Harness, sessionId: string, req: SessionRequest): SessionView {
  const { store } = harness;
  const session = store.session(sessionId);
  const path = store.activePath(sessionId);
  const usage = { inputTokens: 0, outputTokens: 0, modelCalls: 0 };
  let summary = "";
  for (const e of path) {
    if (e.kind === "assistant") {
      usage.modelCalls++;
      usage.inputTokens += e.data.usage?.inputTokens ?? 0;
      usage.outputTokens += e.data.usage?.outputTokens ?? 0;
    }
    const m = messageOf(e);
    if (m && m.role !== "toolResult" && m.text.trim()) summary = m.text;
  }
  const view: SessionView = {
    metadata: {
      sessionId: session.id,
      profileKey: session.profileKey,
      project: session.project,
      title: session.title,
      mode: session.mode,
      status: agentStatus(harness, session, path),
      parentSessionId: session.parentSessionId,
      entryCount: session.entryCount,
      createdAt: session.createdAt,
      updatedAt: session.updatedAt,
    },
    activeLeafId: session.leafId,
    summary: clip(summary, SUMMARY_CHARS),
    usage,
    linkedAgents: store.childLinks(sessionId).map((l) => agentSummary(harness, l.childSessionId)),
  };
  if (!req.includeRecentMessages) return view;
  const roles = new Set(req.recentMessageRoles ?? ["user", "assistant", "toolResult"]);
  const picked: RecentMessage[] = [];
  for (let i = path.length - 1; i >= 0 && picked.length < req.recentMessageLimit; i--) {
    const m = messageOf(path[i]);
    if (m && roles.has(m.role)) picked.unshift({ ...m, text: clip(m.text, MESSAGE_CHARS) });
  }
  // Oldest first out: the budget keeps the newest messages.
  let omitted = 0;
  while (picked.length && picked.reduce((n, m) => n + tokens(m.text), 0) > req.tokenBudget) {
    picked.shift();
    omitted++;
  }
  view.recentMessages = picked;
  if (omitted) view.omittedMessages = omitted;
  return view;
}
