import type { z } from "zod";
import type { Mode } from "../core/modes.js";
import type { CollaborationService } from "../tools/collaboration/service.js";
import type { ControlResolution, ControlService } from "../tools/control/service.js";
import {
  type Allowlist,
  type DispatchContext,
  type PlannedCall,
  planCall,
  runPlanned,
} from "../tools/dispatch.js";
import type { ChangeRecord } from "../tools/pipeline/record.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { DispatchResult, SessionServices, ToolPorts, ToolPreview } from "../tools/types.js";
import type { Project } from "../workspace/project.js";
import type { Workspace } from "../workspace/workspace.js";
import type { TaskItem } from "./events.js";
import type { PendingView, ToolCall } from "./store/schema.js";
import { callSummary, resultSummary } from "./summary.js";

/** Where a step's calls run. */
export interface StepEnv {
  registry: ToolRegistry;
  workspace: Workspace;
  project: Project | null;
  mode: Mode;
  sessionId: string;
  profileKey: string;
  /** The session's `initial` values, handed to tools through ctx.session. */
  initial: Readonly<Record<string, unknown>>;
  /** The payload of the invocation being run, handed to tools through ctx.session (null: none). */
  payload: Readonly<Record<string, unknown>> | null;
  /** The entry id of the user message that began the turn, recorded with each change (null: none). */
  turn: string | null;
  allow: Allowlist;
  output: z.ZodType | undefined;
  tasks: TaskItem[];
  /** Harness-wide services (the job runner), added to each call's session services. */
  services?: Pick<SessionServices, "jobs">;
  signal?: AbortSignal;
  /** How many calls of one step may run at the same time (all of them when absent). */
  maxParallel?: number;
  /** Builds the collaboration service for one call in the given mode (absent: no collaboration tools). */
  collab?: (call: ToolCall, mode: Mode) => CollaborationService;
  /** The user's answer for a resumed control call, by call id. */
  resolutions?: ReadonlyMap<string, ControlResolution>;
  /**
   * The call the user approved in a read-only mode (runs once, ungated), with the basis of the
   * preview the approval was stored with: the tool runs exactly that, or fails with `conflict`.
   */
  approved?: { callId: string; basis?: unknown };
  /** Where the record of each executed write goes. */
  onChange?: (record: ChangeRecord) => void;
  /** What the harness's opener lends the tools. */
  ports?: ToolPorts;
  onStart?: (call: ToolCall, summary: string) => void;
  onEnd?: (call: ToolCall, result: DispatchResult, summary: string) => void;
}

/** A call the run must pause on until the user answers. */
export interface StepPause {
  call: ToolCall;
  kind: PendingView["kind"];
  preview: ToolPreview;
}

/** What one step's calls produced. */
export interface StepOutcome {
  /** One result per call that finished (or was skipped), in call order; the paused call has none. */
  results: { call: ToolCall; result: DispatchResult }[];
  pause: StepPause | null;
  reported: { result: string; data?: unknown } | null;
  reportFailures: number;
  /** The new task list when a task tool changed it. */
  tasks: TaskItem[] | null;
  modeChange: { from: Mode; to: Mode; reason: string } | null;
}

function skipped(why: string): DispatchResult {
  return {
    ok: false,
    error: { code: "aborted", message: `Skipped: ${why}. Call it again if it is still needed.` },
  };
}

/** Map `items` through `fn` with at most `limit` calls in flight, keeping the order of the results. */
async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

/**
 * Run one step's tool calls through dispatch. Read-effect calls run concurrently; if any call may
 * write (or touches the session), all run in order. A call that needs the user pauses the step:
 * later calls are skipped with an explanatory error, and the run waits.
 */
export async function runStepCalls(calls: readonly ToolCall[], env: StepEnv): Promise<StepOutcome> {
  const out: StepOutcome = {
    results: [],
    pause: null,
    reported: null,
    reportFailures: 0,
    tasks: null,
    modeChange: null,
  };
  let mode = env.mode;
  let tasks = env.tasks;
  const suspended = new Map<string, { kind: "switch_mode" | "user_input"; text: string }>();

  const dctxFor = (call: ToolCall): DispatchContext => {
    const tasksService: NonNullable<SessionServices["tasks"]> = {
      list: () => tasks,
      replace: (next) => {
        tasks = next;
        out.tasks = next;
      },
    };
    const control: ControlService = {
      get mode() {
        return mode;
      },
      resolution: env.resolutions?.get(call.id) ?? null,
      suspend: (kind, text) => {
        suspended.set(call.id, { kind, text });
        return { text: "Waiting for the user." };
      },
      switchMode: (to, reason) => {
        out.modeChange = { from: out.modeChange?.from ?? mode, to, reason };
        mode = to;
      },
    };
    const collab: CollaborationService | undefined = env.collab?.(call, mode);
    return {
      registry: env.registry,
      workspace: env.workspace,
      project: env.project,
      mode,
      profileKey: env.profileKey,
      allow: env.allow,
      ...(env.approved?.callId === call.id
        ? { approved: true, approvedBasis: env.approved.basis }
        : { approved: false }),
      signal: env.signal,
      ...(env.onChange ? { onChange: env.onChange } : {}),
      ...(env.ports ? { ports: env.ports } : {}),
      session: {
        id: env.sessionId,
        profileKey: env.profileKey,
        initial: env.initial,
        ...(env.payload ? { payload: env.payload } : {}),
        callId: call.id,
        ...(env.turn ? { turn: env.turn } : {}),
        services: {
          ...env.services,
          tasks: tasksService,
          control,
          result: { schema: env.output ?? null },
          ...(collab ? { collab } : {}),
        },
      },
    };
  };

  // A step whose tools all only read (and touch no session state) may run at once: its calls are
  // prepared together, and run in parallel when every one of them reads and may run. Any other
  // step runs in order, each call prepared when its turn comes, so it sees what earlier calls wrote.
  const tools = calls.map((call) => env.registry.get(call.key));
  const mayParallel = tools.every(
    (t) => t !== undefined && t.effect !== "write" && t.ordering === "parallel",
  );
  const upfront = mayParallel
    ? await Promise.all(
        calls.map(async (call) => {
          const dctx = dctxFor(call);
          return { dctx, plan: await planCall({ key: call.key, input: call.input }, dctx) };
        }),
      )
    : null;
  const parallel = upfront?.every(({ plan }) => plan.kind === "run" && plan.call.prepared.effect === "read");

  const runOne = async (
    call: ToolCall,
    planned?: { dctx: DispatchContext; plan: PlannedCall },
  ): Promise<DispatchResult | StepPause> => {
    const dctx = planned?.dctx ?? dctxFor(call);
    const plan = planned?.plan ?? (await planCall({ key: call.key, input: call.input }, dctx));
    if (plan.kind === "refuse") return { ok: false, error: plan.error };
    if (plan.kind === "ask") return { call, kind: "write", preview: plan.preview };
    const r = await runPlanned(plan, dctx);
    const s = suspended.get(call.id);
    return s ? { call, kind: s.kind, preview: { text: s.text } } : r;
  };

  const record = (call: ToolCall, r: DispatchResult | StepPause) => {
    if ("kind" in r) {
      out.pause = r;
      return;
    }
    out.results.push({ call, result: r });
    env.onEnd?.(call, r, resultSummary(r));
    if (!tools[calls.indexOf(call)]?.terminal) return;
    if (r.ok) out.reported = r.details as { result: string; data?: unknown };
    else out.reportFailures++;
  };

  if (parallel) {
    for (const call of calls) env.onStart?.(call, callSummary(call.key, call.input));
    const indexes = calls.map((_, i) => i);
    const results = await mapLimited(indexes, env.maxParallel ?? calls.length, (i) =>
      runOne(calls[i], upfront?.[i]),
    );
    calls.forEach((call, i) => {
      record(call, results[i]);
    });
    return out;
  }
  for (const call of calls) {
    if (out.pause || out.reported) {
      const why = out.pause
        ? `the run paused for ${out.pause.call.key} before this call ran`
        : "the final result was already reported";
      record(call, skipped(why));
      continue;
    }
    if (env.signal?.aborted) {
      record(call, skipped("the run was aborted"));
      continue;
    }
    env.onStart?.(call, callSummary(call.key, call.input));
    record(call, await runOne(call));
  }
  return out;
}
