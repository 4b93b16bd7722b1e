import { randomUUID } from "node:crypto";
import { type ErrorInfo, toErrorInfo } from "../core/errors.js";
import { capMode } from "../core/modes.js";
import type { ProfileCatalog } from "../profiles/catalog.js";
import type { PromptContext } from "../profiles/types.js";
import type { CollaborationService } from "../tools/collaboration/service.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { Mode, SessionServices, ToolPorts } from "../tools/types.js";
import type { Workspace } from "../workspace/workspace.js";
import { announce } from "./announce.js";
import { compact, contextTokens } from "./compaction.js";
import { buildSystem, type PathState, readPath, toMessages } from "./context.js";
import type { EventBus, PendingView, RunStatus } from "./events.js";
import { pendingView } from "./pending.js";
import { buildRunContext, type RunContext } from "./run-context.js";
import { runStepCalls, type StepEnv } from "./step.js";
import { requestEntry, resultEntries } from "./step-entries.js";
import { type Entry, type EntryInput, oneLine, type SessionStore } from "./store/index.js";
import { callModel } from "./stream.js";
import type { InvocationCaller, InvocationMode, LoopSettings, ModelResolver, RunResult } from "./types.js";

/** Builds the collaboration service for one call of an agent session running in `mode`. */
export type CollaborationFactory = (callerId: string, callId: string, mode: Mode) => CollaborationService;

/** What the loop runs on. */
export interface HarnessDeps {
  workspace: Workspace;
  store: SessionStore;
  registry: ToolRegistry;
  catalog: ProfileCatalog;
  resolveModel: ModelResolver;
  bus: EventBus;
  settings: LoopSettings;
  /** Harness-wide services handed to every tool call through ctx.session.services (the job runner). */
  services: Pick<SessionServices, "jobs">;
  /** What the harness's opener lends the tools (see ToolPorts). */
  ports?: ToolPorts;
  /** Present when the harness offers the collaboration tools their service. */
  collab?: CollaborationFactory;
}

/**
 * Revoked when the harness ends a run itself (an abort its code did not honour within the grace
 * period): from then on the run writes nothing, so late model output or tool results are never
 * recorded. `runId` is the run in progress, for the harness's own closing entry.
 */
export interface RunFence {
  revoked: boolean;
  runId: string | null;
}

/** How one run is controlled from outside. */
export interface RunControl {
  signal: AbortSignal;
  fence: RunFence;
  /** The calling agent's mode: the run never runs in a more permissive one. */
  ceiling?: Mode;
  caller?: InvocationCaller;
}

/** Thrown inside a run whose fence was revoked, to leave it without writing anything. */
class RunFenced extends Error {}

/** The user message that starts a run, if any. */
export interface RunInput {
  text: string;
  intent: "prompt" | "steer" | "followup" | "system";
  queueItemId?: string;
}

const REPORT_STRIKES = 3;
const REMINDER =
  "You ended without calling report_result. Your profile defines a structured result: call report_result now with `result` (and `data` matching the output schema).";

/**
 * The environment a session's tool calls run in, from the run's context and the state of its
 * history (`tasks`, `payload`), in the session's own mode.
 */
export function stepEnv(
  deps: HarnessDeps,
  ctx: RunContext,
  runId: string,
  state: Pick<PathState, "tasks" | "payload">,
  signal?: AbortSignal,
): StepEnv {
  const sessionId = ctx.session.id;
  return {
    registry: deps.registry,
    workspace: deps.workspace,
    project: ctx.project,
    mode: ctx.session.mode,
    sessionId,
    profileKey: ctx.profile.key,
    initial: ctx.session.initial,
    payload: state.payload,
    allow: ctx.allow,
    output: ctx.output,
    tasks: state.tasks,
    services: deps.services,
    ...(deps.ports ? { ports: deps.ports } : {}),
    maxParallel: deps.settings.maxParallelToolCalls,
    signal,
    ...(deps.collab ? { collab: (call, mode) => deps.collab!(sessionId, call.id, mode) } : {}),
    onStart: (call, summary) =>
      deps.bus.emit({ type: "tool_call_start", sessionId, runId, callId: call.id, tool: call.key, summary }),
    onEnd: (call, result, summary) =>
      deps.bus.emit({
        type: "tool_call_end",
        sessionId,
        runId,
        callId: call.id,
        tool: call.key,
        ok: result.ok,
        summary,
      }),
  };
}

/**
 * One run: model call → tool calls → repeat, until the model stops calling tools, reports its
 * result, needs the user, hits the step limit, fails, or is aborted. Every step commits as one
 * transaction, so whatever stops the run leaves the session consistent and resumable.
 */
export async function runOnce(
  deps: HarnessDeps,
  sessionId: string,
  invocation: InvocationMode,
  input: RunInput | null,
  modelRef: string | undefined,
  control: RunControl,
): Promise<RunResult> {
  const { store, bus, settings } = deps;
  const { signal, fence, ceiling, caller } = control;
  const runId = randomUUID();
  fence.runId = runId;
  const live = () => {
    if (fence.revoked) throw new RunFenced();
  };
  const ctx = buildRunContext(deps, sessionId, (session, profile) =>
    deps.resolveModel(modelRef ?? session.model ?? undefined, profile.key, sessionId),
  );
  const { session, profile, allow, output, offered, model: resolved } = ctx;
  const path: Entry[] = store.activePath(sessionId);
  const push = (...entries: Entry[]) => {
    for (const e of entries) path.push(e);
  };

  store.claimRun(sessionId);
  const started = store.append(sessionId, {
    kind: "run_start",
    data: { runId, invocation, ...(ceiling ? { ceiling } : {}), ...(caller ? { caller } : {}) },
  });
  push(started);
  if (input) {
    push(store.append(sessionId, { kind: "user", data: input }));
    // An untitled session is named after its first message, so `sessions list` says what it is about.
    if (!session.title) store.updateSession(sessionId, { title: oneLine(input.text, 80) });
  }
  announce(bus, sessionId, [started]);

  let steps = 0;
  let lastText = "";
  let reminded = false;
  let strikes = 0;
  const usage = { inputTokens: 0, outputTokens: 0 };

  const end = (
    status: RunStatus,
    extra: { finalMessage?: string; data?: unknown; pending?: PendingView; error?: ErrorInfo } = {},
  ): RunResult => {
    const finalMessage = extra.finalMessage ?? lastText;
    const out: RunResult = { sessionId, status, finalMessage, steps, usage };
    if (extra.data !== undefined) out.data = extra.data;
    if (extra.pending) out.pending = extra.pending;
    if (extra.error) out.error = extra.error;
    // The harness already closed this run (see RunFence): nothing more is written or announced.
    if (fence.revoked) return { ...out, status: "aborted" };
    const closing: Entry[] = [];
    if (extra.error)
      closing.push(store.append(sessionId, { kind: "run_error", data: { runId, error: extra.error } }));
    const data: { runId: string; status: RunStatus; finalMessage: string; data?: unknown } = {
      runId,
      status,
      finalMessage,
    };
    if (extra.data !== undefined) data.data = extra.data;
    closing.push(store.append(sessionId, { kind: "run_end", data }));
    push(...closing);
    store.setStatus(sessionId, status === "waiting" ? "waiting" : "idle");
    announce(bus, sessionId, closing);
    return out;
  };

  try {
    // A run's mode holds for the whole run (the user changes it between runs, the agent only through
    // an approval, which ends the run), so its prompt is built once.
    const mode = capMode(session.mode, ceiling);
    const pctxBase: PromptContext = { ...ctx.prompt, mode };
    const systemPrompt =
      profile.systemPrompt(pctxBase) +
      (mode !== session.mode && caller
        ? `\n\nAgent session ${caller.sessionId} called you while it is in ${mode} mode, so you work in ${mode} mode for this call: your writes need the user's approval, and switch_mode cannot lift that.`
        : "");
    const env = stepEnv(deps, ctx, runId, readPath(path), signal);
    for (;;) {
      if (signal.aborted) return end("aborted");
      if (steps >= settings.stepLimit) {
        return end("step_limit", { finalMessage: lastText || `Stopped after ${steps} steps (step limit).` });
      }
      live();
      for (const item of store.queued(sessionId, "steer")) {
        push(
          store.append(sessionId, {
            kind: "user",
            data: { text: item.text, intent: "steer", queueItemId: item.id },
          }),
        );
      }
      let state = readPath(path);
      let system = buildSystem(systemPrompt, mode, state);
      let messages = toMessages(state.visible);
      if (contextTokens(system, offered.chars, state.visible) > settings.compactAt * resolved.contextWindow) {
        const compacted = await compact(deps, sessionId, runId, path, resolved, pctxBase, signal, fence);
        if (compacted) {
          push(compacted);
          state = readPath(path);
          system = buildSystem(systemPrompt, mode, state);
          messages = toMessages(state.visible);
        }
      }

      steps++;
      bus.emit({ type: "turn_start", sessionId, runId, step: steps });
      const turn = await callModel({
        model: resolved.model,
        system,
        messages,
        tools: offered.tools,
        maxOutputTokens: resolved.maxOutputTokens,
        signal,
        maxRetries: settings.maxRetries,
        onText: (text) => {
          if (!fence.revoked) bus.emit({ type: "text_delta", sessionId, runId, text });
        },
      });
      live();
      usage.inputTokens += turn.usage?.inputTokens ?? 0;
      usage.outputTokens += turn.usage?.outputTokens ?? 0;

      if (turn.aborted || turn.error) {
        // Partial text is kept; tool calls of a cut stream are dropped, never half-recorded.
        if (turn.text) {
          const status = turn.aborted ? "aborted" : "partial";
          push(
            store.append(sessionId, {
              kind: "assistant",
              data: { text: turn.text, toolCalls: [], status, model: resolved.ref },
            }),
          );
          lastText = turn.text;
        }
        bus.emit({ type: "turn_end", sessionId, runId, step: steps, toolCalls: 0 });
        if (turn.aborted) return end("aborted");
        return end("error", { error: turn.error ?? { code: "internal", message: "Model call failed" } });
      }

      const assistant: EntryInput = {
        kind: "assistant",
        data: {
          text: turn.text,
          toolCalls: turn.toolCalls,
          model: resolved.ref,
          ...(turn.usage ? { usage: turn.usage } : {}),
        },
      };
      if (turn.text) lastText = turn.text;

      if (turn.toolCalls.length === 0) {
        push(store.append(sessionId, assistant));
        bus.emit({ type: "turn_end", sessionId, runId, step: steps, toolCalls: 0 });
        if (output && allow.has("report_result") && !reminded) {
          reminded = true;
          push(store.append(sessionId, { kind: "user", data: { text: REMINDER, intent: "prompt" } }));
          continue;
        }
        return end("completed");
      }

      // The payload as of this step: a steer may have brought the invocation a new one.
      const outcome = await runStepCalls(turn.toolCalls, {
        ...env,
        mode,
        tasks: state.tasks,
        payload: state.payload,
      });
      live();
      const entries: EntryInput[] = [assistant, ...resultEntries(outcome.results)];
      if (outcome.tasks) entries.push({ kind: "task_list", data: { tasks: outcome.tasks } });
      if (outcome.pause) entries.push(requestEntry(outcome.pause));
      const committed = store.commitStep(sessionId, entries);
      push(...committed);
      announce(bus, sessionId, committed);
      bus.emit({ type: "turn_end", sessionId, runId, step: steps, toolCalls: turn.toolCalls.length });

      if (outcome.pause) {
        // The request is the step's last entry; its id is the approval id.
        const request = { id: committed[committed.length - 1].id, kind: outcome.pause.kind };
        const pending = pendingView(request, outcome.pause.call, outcome.pause.preview.text);
        bus.emit({
          type: outcome.pause.kind === "user_input" ? "user_input_required" : "approval_required",
          sessionId,
          runId,
          pending,
        });
        return end("waiting", { pending, finalMessage: lastText });
      }
      if (outcome.reported) {
        return end("completed", { finalMessage: outcome.reported.result, data: outcome.reported.data });
      }
      strikes = outcome.reportFailures ? strikes + outcome.reportFailures : 0;
      if (strikes >= REPORT_STRIKES) {
        return end("error", {
          error: {
            code: "limit_exceeded",
            message: `report_result failed validation ${strikes} times in a row`,
          },
        });
      }
    }
  } catch (e) {
    if (fence.revoked) return { sessionId, status: "aborted", finalMessage: lastText, steps, usage };
    const error = toErrorInfo(e, [deps.workspace.root, deps.workspace.realRoot]);
    try {
      return end("error", { error });
    } catch {
      store.setStatus(sessionId, "idle");
      bus.emit({ type: "error", sessionId, runId, error });
      return { sessionId, status: "error", finalMessage: lastText, steps, error, usage };
    }
  }
}
