import type { Mode } from "../../core/modes.js";
import type { PendingView, RunStatus } from "../../harness/store/schema.js";
import type { describeProfile } from "../../profiles/describe.js";

/** What get_agent_profile returns: a profile's public description (no prompt, no source file). */
export type ProfileDescription = ReturnType<typeof describeProfile>;

/** The real state of an agent session, as get_agent reports it. */
export type AgentStatus = "idle" | "running" | "waiting" | "error";

/** What the user must settle before a waiting agent goes on. */
export interface AgentPending {
  approvalId: string;
  kind: PendingView["kind"];
  tool: string;
  /** What the user is shown (a diff, the question), clipped. */
  preview: string;
}

/** One agent session as get_agent describes it. */
export interface AgentSummary {
  sessionId: string;
  profileKey: string;
  title: string;
  project: string | null;
  mode: Mode;
  status: AgentStatus;
  parentSessionId: string | null;
  /** How the latest run ended, when there was one. */
  lastRun?: { status: string; finalMessage: string };
  pending?: AgentPending;
}

/** What create_agent made. */
export interface CreatedAgent {
  sessionId: string;
  profileKey: string;
  title: string;
  mode: Mode;
}

/** How an invoke_agent call came out (the tool's `details`). */
export interface AgentInvocationResult {
  status: RunStatus | "queued" | "started";
  sessionId: string;
  /** report_result's text, else the last assistant text; clipped at 64 KiB. */
  finalMessage: string;
  /** Bytes of finalMessage cut off by the 64 KiB clip; absent when nothing was cut. */
  finalMessageOmittedBytes?: number;
  /** report_result's structured data; null without one. */
  data: unknown;
  stats?: { steps: number; elapsedMs: number; inputTokens?: number; outputTokens?: number };
  error?: { code: string; message: string };
  /** For `waiting`: the child's approval or question, settled by the user. */
  approvalId?: string;
  pending?: AgentPending;
  /** For `started` (background): the job that runs the invocation. */
  jobId?: string;
}

/** What detach_agent did. */
export interface DetachOutcome {
  sessionId: string;
  status: "detached" | "already_detached";
}

/** One message of a session, as get_session shows it. */
export interface RecentMessage {
  role: "user" | "assistant" | "toolResult";
  text: string;
  timestamp: string;
}

/** What get_session returns. */
export interface SessionView {
  metadata: {
    sessionId: string;
    profileKey: string;
    project: string | null;
    title: string;
    mode: Mode;
    status: AgentStatus;
    parentSessionId: string | null;
    entryCount: number;
    createdAt: string;
    updatedAt: string;
  };
  activeLeafId: string | null;
  summary: string;
  usage: { inputTokens: number; outputTokens: number; modelCalls: number };
  linkedAgents: AgentSummary[];
  recentMessages?: RecentMessage[];
  /** Older messages left out to stay within tokenBudget. */
  omittedMessages?: number;
}

/** invoke_agent's request after validation (ids as strings). */
export interface InvokeAgentRequest {
  sessionId: string;
  mode?: "prompt" | "continue" | "steer" | "followup";
  message?: string;
  input?: Record<string, unknown>;
  title?: string;
  model?: string;
  background?: boolean;
}

/** get_session's request after validation. */
export interface SessionRequest {
  sessionId?: string;
  includeRecentMessages: boolean;
  recentMessageLimit: number;
  recentMessageRoles?: RecentMessage["role"][];
  tokenBudget: number;
}

/**
 * What the collaboration tools need from the harness, bound to the calling session and call. The
 * ownership policy, admission and the mode ceiling are enforced behind it (src/collab/).
 */
export interface CollaborationService {
  profile(profileKey: string): ProfileDescription;
  create(req: { profileKey: string; initial: Record<string, unknown>; title?: string }): CreatedAgent;
  invoke(req: InvokeAgentRequest, signal?: AbortSignal): Promise<AgentInvocationResult>;
  /** The agents this session created and still holds. */
  agents(): AgentSummary[];
  agent(sessionId: string): AgentSummary;
  session(req: SessionRequest): SessionView;
  detach(sessionId: string): DetachOutcome;
}
