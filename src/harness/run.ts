import { randomUUID } from "node:crypto";
import { toErrorInfo } from "../core/errors.js";
import { capMode, type Mode } from "../core/modes.js";
import type { ProfileCatalog } from "../profiles/catalog.js";
import type { PromptContext } from "../profiles/types.js";
import type { CollaborationService } from "../tools/collaboration/service.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { SessionServices, ToolPorts } from "../tools/types.js";
import type { Workspace } from "../workspace/workspace.js";
import { announce } from "./announce.js";
import { type PathState, readPath } from "./context.js";
import type { EventBus } from "./events.js";
import { buildRunContext, type RunContext } from "./run-context.js";
import { RunRecord } from "./run-record.js";
import { runStepCalls, type StepEnv } from "./step.js";
import { type EntryInput, oneLine, type SessionStore } from "./store/index.js";
import { callModel } from "./stream.js";
import { turnHooks } from "./turn-hooks.js";
import type { InvocationCaller, InvocationMode, LoopSettings, ModelResolver, RunResult } from "./types.js";
import { budgetState, recordModelCall } from "./usage.js";

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

/**
 * The environment a session's tool calls run in, from the run's context and the state of its
 * history (`tasks`, `payload`), in the session's own mode.
 */
export function stepEnv(
  deps: HarnessDeps,
  ctx: RunContext,
  runId: string,
  state: Pick<PathState, "tasks" | "payload" | "turn">,
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
    turn: state.turn,
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
 * transaction, so whatever stops the run leaves the session consistent and resumable. What happens
 * between the model calls is the hooks' (turn-hooks.ts); what the run writes, its record's.
 */
export async function runOnce(
  deps: HarnessDeps,
  sessionId: string,
  invocation: InvocationMode,
  input: RunInput | null,
  modelRef: string | undefined,
  control: RunControl,
): Promise<RunResult> {
  const { bus, settings } = deps;
  const { signal, fence, ceiling, caller } = control;
  const runId = randomUUID();
  fence.runId = runId;
  const live = () => {
    if (fence.revoked) throw new RunFenced();
  };
  const ctx = buildRunContext(deps, sessionId, (session, profile) =>
    deps.resolveModel(modelRef ?? session.model ?? undefined, profile.key, sessionId),
  );
  const record = new RunRecord(deps.store, bus, sessionId, runId, fence);
  startRun(deps, ctx, record, invocation, input, control);

  try {
    // A run's mode holds for the whole run (the user changes it between runs, the agent only through
    // an approval, which ends the run), so its prompt is built once.
    const mode = capMode(ctx.session.mode, ceiling);
    const pctx: PromptContext = { ...ctx.prompt, mode };
    const systemPrompt =
      ctx.profile.systemPrompt(pctx) +
      (mode !== ctx.session.mode && caller
        ? `\n\nAgent session ${caller.sessionId} called you while it is in ${mode} mode, so you work in ${mode} mode for this call: your writes need the user's approval, and switch_mode cannot lift that.`
        : "");
    const hooks = turnHooks(deps, ctx, record, { mode, systemPrompt, pctx, signal, fence });
    const env = stepEnv(deps, ctx, runId, readPath(record.path), signal);
    for (;;) {
      if (signal.aborted) return record.end("aborted");
      if (record.steps >= settings.stepLimit) {
        const finalMessage = record.lastText || `Stopped after ${record.steps} steps (step limit).`;
        return record.end("step_limit", { finalMessage });
      }
      live();
      hooks.takeQueued();
      // Checked before each call (and before any compaction), so no call starts past a limit.
      const budget = budgetState(deps.store, ctx.session, ctx.budgets);
      if (budget.state === "stop") {
        const message = budget.message as string;
        return record.end("budget_limit", {
          finalMessage: message,
          error: { code: "limit_exceeded", message },
        });
      }
      const input = await hooks.modelInput();
      const { state, system, messages, tools } = input;

      const step = ++record.steps;
      bus.emit({ type: "turn_start", sessionId, runId, step });
      const turn = await callModel({
        model: ctx.model.model,
        system,
        messages,
        tools,
        maxOutputTokens: ctx.model.maxOutputTokens,
        signal,
        maxRetries: settings.maxRetries,
        onText: (text) => {
          if (!fence.revoked) bus.emit({ type: "text_delta", sessionId, runId, text });
        },
      });
      live();
      // A call that was cut before the provider said what it used is not counted: its cost is unknown.
      if (turn.usage || (!turn.error && !turn.aborted))
        recordModelCall(deps, ctx, runId, input, turn, "turn");
      record.usage.inputTokens += turn.usage?.inputTokens ?? 0;
      record.usage.outputTokens += turn.usage?.outputTokens ?? 0;

      if (turn.aborted || turn.error) {
        // Partial text is kept; tool calls of a cut stream are dropped, never half-recorded.
        if (turn.text) {
          const status = turn.aborted ? "aborted" : "partial";
          record.append({
            kind: "assistant",
            data: { text: turn.text, toolCalls: [], status, model: ctx.model.ref },
          });
          record.lastText = turn.text;
        }
        bus.emit({ type: "turn_end", sessionId, runId, step, toolCalls: 0 });
        if (turn.aborted) return record.end("aborted");
        return record.end("error", {
          error: turn.error ?? { code: "internal", message: "Model call failed" },
        });
      }

      const assistant: EntryInput = {
        kind: "assistant",
        data: {
          text: turn.text,
          toolCalls: turn.toolCalls,
          model: ctx.model.ref,
          ...(turn.usage
            ? { usage: { inputTokens: turn.usage.inputTokens, outputTokens: turn.usage.outputTokens } }
            : {}),
        },
      };
      if (turn.text) record.lastText = turn.text;

      if (turn.toolCalls.length === 0) {
        record.append(assistant);
        bus.emit({ type: "turn_end", sessionId, runId, step, toolCalls: 0 });
        if (hooks.anotherTurn()) continue;
        return record.end("completed");
      }

      // The payload as of this step: a steer may have brought the invocation a new one.
      const outcome = await runStepCalls(turn.toolCalls, {
        ...env,
        mode,
        tasks: state.tasks,
        payload: state.payload,
      });
      live();
      const verdict = hooks.afterStep(assistant, outcome, turn.toolCalls.length);
      if (verdict) return record.end(verdict.status, verdict.ending);
    }
  } catch (e) {
    if (fence.revoked) return record.result("aborted");
    const error = toErrorInfo(e, [deps.workspace.root, deps.workspace.realRoot]);
    try {
      return record.end("error", { error });
    } catch {
      deps.store.setStatus(sessionId, "idle");
      bus.emit({ type: "error", sessionId, runId, error });
      return record.result("error", { error });
    }
  }
}

/** Open the run in its session: claimed by this process, its start (and the user's message) recorded. */
function startRun(
  deps: HarnessDeps,
  ctx: RunContext,
  record: RunRecord,
  invocation: InvocationMode,
  input: RunInput | null,
  { ceiling, caller }: RunControl,
): void {
  deps.store.claimRun(record.sessionId);
  const [started] = record.append({
    kind: "run_start",
    data: { runId: record.runId, invocation, ...(ceiling ? { ceiling } : {}), ...(caller ? { caller } : {}) },
  });
  if (input) {
    record.append({ kind: "user", data: input });
    // An untitled session is named after its first message, so `sessions list` says what it is about.
    if (!ctx.session.title) deps.store.updateSession(record.sessionId, { title: oneLine(input.text, 80) });
  }
  announce(deps.bus, record.sessionId, [started]);
}
