import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { ErrorInfo } from "../core/errors.js";
import type { Mode } from "../core/modes.js";
import type { PendingView, RunStatus } from "./events.js";
import type { Attachment } from "./store/schema.js";

/** How an invocation enters a session (the seed's contract for `invoke_agent`). */
export type InvocationMode = "prompt" | "steer" | "followup" | "continue";

/** One request to a session. */
export interface InvokeRequest {
  mode: InvocationMode;
  /** Required for prompt, steer and followup; forbidden for continue. */
  message?: string;
  /** Context the user attached (`@`-mentions), shown to the model fenced after the message. */
  attachments?: Attachment[];
  /** Override the session's model for this one invocation (`<providerId>/<modelId>`). */
  model?: string;
  signal?: AbortSignal;
  /**
   * The most permissive mode this invocation may run in (the calling agent's mode): the session
   * runs in the stricter of its own mode and this one. Kept for the run's continuation after an
   * approval.
   */
  ceiling?: Mode;
  /** The agent session and tool call that made this invocation (collaboration). */
  caller?: InvocationCaller;
}

/** The agent call behind an invocation. */
export interface InvocationCaller {
  sessionId: string;
  callId: string;
}

/** The outcome of one invocation. `queued` means the input waits for the active run. */
export interface RunResult {
  sessionId: string;
  status: RunStatus | "queued";
  /** The `report_result` text, else the last assistant text. */
  finalMessage: string;
  /** The `report_result` data, when the profile reported one. */
  data?: unknown;
  /** Set when status is `waiting`. */
  pending?: PendingView;
  error?: ErrorInfo;
  steps: number;
  /** Tokens the run's model calls reported (or estimated), summed. */
  usage?: { inputTokens: number; outputTokens: number };
}

/** How the user settles a pending approval or question. */
export interface Resolution {
  approved: boolean;
  /** Why the user rejected (approvals), passed to the model. */
  reason?: string;
  /** The answer to a request_user_input question. */
  answer?: string;
}

/** A model ready for the loop, with the window size compaction needs. */
export interface ResolvedModel {
  ref: string;
  model: LanguageModelV3;
  /** Context window in tokens. */
  contextWindow: number;
  /** Cap on the tokens of one answer, sent with every call (the provider's default when absent). */
  maxOutputTokens?: number;
}

/**
 * Turns a model reference (or none: the profile/workspace default) into a model. `sessionId` is the
 * session that will call it (absent while a session is being created); a scripted model routes its
 * turns by it.
 */
export type ModelResolver = (
  ref: string | undefined,
  profileKey: string,
  sessionId?: string,
) => ResolvedModel;

/** Tunables of the loop. */
export interface LoopSettings {
  /** Model calls per run before it stops with `step_limit` (default 50). */
  stepLimit: number;
  /** Compact when the estimated context exceeds this share of the window (default 0.8). */
  compactAt: number;
  /** Share of the window kept verbatim after compaction (default 0.3). */
  keepRecent: number;
  /** Provider retries per model call (default 2). */
  maxRetries: number;
  /** Background jobs running at once in this process (default 4); more wait, queued. */
  maxConcurrentJobs: number;
  /**
   * Calls of one step that run at the same time, when they may run concurrently (default 4;
   * `agent.maxParallelToolCalls` in config).
   */
  maxParallelToolCalls: number;
  /**
   * After an abort, how long a run may take to stop by itself before the harness ends it and
   * ignores whatever it produces later (default 150 ms).
   */
  abortGraceMs: number;
}

export const DEFAULT_LOOP_SETTINGS: LoopSettings = {
  stepLimit: 50,
  compactAt: 0.8,
  keepRecent: 0.3,
  maxRetries: 2,
  maxConcurrentJobs: 4,
  maxParallelToolCalls: 4,
  abortGraceMs: 150,
};

/** What creating a session takes. */
export interface NewSession {
  profileKey: string;
  project?: string | null;
  mode?: Mode;
  model?: string;
  title?: string;
  initial?: Record<string, unknown>;
  /** The agent session creating this one (its link is recorded with it). */
  parentSessionId?: string;
}
