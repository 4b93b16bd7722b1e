import { randomUUID } from "node:crypto";
import { isNbError, NbError } from "../core/errors.js";
import type { Mode } from "../core/modes.js";
import { JobRunner } from "../jobs/runner.js";
import { type BudgetCheck, loadBudgets } from "../models/budgets.js";
import type { ProfileCatalog } from "../profiles/catalog.js";
import type { Profile } from "../profiles/types.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { ToolPorts } from "../tools/types.js";
import type { Workspace } from "../workspace/workspace.js";
import { forceEnd, withinAbortGrace } from "./abort.js";
import { announce } from "./announce.js";
import type { Collaboration, CollaborationPlugin } from "./collaboration.js";
import { compact } from "./compaction.js";
import { readPath } from "./context.js";
import { EventBus, type PendingView, type TaskItem } from "./events.js";
import { waitingOn } from "./pending.js";
import { type RewindResult, type RewindScope, rewindSession, undoLastTurn } from "./rewind.js";
import { type HarnessDeps, type RunControl, type RunInput, runOnce, stepEnv } from "./run.js";
import { buildRunContext } from "./run-context.js";
import { runStepCalls } from "./step.js";
import { resultEntries } from "./step-entries.js";
import {
  type Entry,
  type EntryInput,
  type QueueKind,
  runningElsewhere,
  type Session,
  type SessionStore,
} from "./store/index.js";
import {
  DEFAULT_LOOP_SETTINGS,
  type InvokeRequest,
  type LoopSettings,
  type ModelResolver,
  type NewSession,
  type Resolution,
  type RunResult,
} from "./types.js";
import { budgetState } from "./usage.js";
import { workingPath } from "./working-path.js";

/** The intent a queued input is delivered with: a prompt, nbook's own follow-up, else a follow-up. */
function queuedIntent(kind: QueueKind): RunInput["intent"] {
  return kind === "prompt" ? "prompt" : kind === "system" ? "system" : "followup";
}

/** What a Harness is built from. */
export interface HarnessOptions {
  workspace: Workspace;
  store: SessionStore;
  registry: ToolRegistry;
  catalog: ProfileCatalog;
  resolveModel: ModelResolver;
  bus?: EventBus;
  settings?: Partial<LoopSettings>;
  /** The models agents may name in invoke_agent (`model`); none when absent. */
  visibleModels?: () => readonly string[];
  /** Agent collaboration (invoke_agent and the rest); without it the collaboration tools get no service. */
  collaboration?: CollaborationPlugin;
  /** What the opener lends the tools (the memory curator's harness, workflow runs); see ToolPorts. */
  ports?: ToolPorts;
}

/** How a run continues: the ceiling and caller of the invocation it belongs to. */
type RunOrigin = Pick<RunControl, "ceiling" | "caller">;

/** A run active in this process. */
interface ActiveRun {
  controller: AbortController;
  /** The agent session that invoked it (its foreground parent), if any. */
  callerId?: string;
  /** Settles when the run has ended, by itself or forced. */
  done?: Promise<unknown>;
}

/**
 * The agent harness: sessions, invocations (prompt / steer / followup / continue), approvals and
 * the turn loop. State lives in the store; this object only tracks the runs active in this process.
 */
export class Harness {
  readonly bus: EventBus;
  /** This process's background jobs; a job's flow-back starts its owner's turn when the owner is idle here. */
  readonly jobs: JobRunner;
  private readonly flowBacks = new Map<string, Promise<RunResult>>();
  private readonly deps: HarnessDeps;
  private readonly active = new Map<string, ActiveRun>();
  private readonly collaboration: Collaboration | undefined;
  readonly visibleModels: () => readonly string[];

  constructor(opts: HarnessOptions) {
    this.bus = opts.bus ?? new EventBus();
    const settings = { ...DEFAULT_LOOP_SETTINGS, ...opts.settings };
    this.jobs = new JobRunner({
      table: opts.store.jobs,
      maxConcurrent: settings.maxConcurrentJobs,
      hidePaths: [opts.workspace.root, opts.workspace.realRoot],
    });
    this.jobs.on((e) => {
      if (e.type === "job_ended" && e.job.ownerSessionId) this.runQueued(e.job.ownerSessionId);
    });
    // As for jobs: sessions a process that is gone left running are closed, so they can go on.
    opts.store.recoverInterrupted();
    this.visibleModels = opts.visibleModels ?? (() => []);
    this.deps = {
      workspace: opts.workspace,
      store: opts.store,
      registry: opts.registry,
      catalog: opts.catalog,
      resolveModel: opts.resolveModel,
      bus: this.bus,
      settings,
      services: { jobs: this.jobs },
      ...(opts.ports ? { ports: opts.ports } : {}),
    };
    this.collaboration = opts.collaboration?.(this);
    if (this.collaboration) {
      const c = this.collaboration;
      this.deps.collab = (callerId, callId, mode) => c.service(callerId, callId, mode);
    }
  }

  /** The tools this harness's sessions call. */
  get registry(): ToolRegistry {
    return this.deps.registry;
  }

  /** The profiles this harness runs. */
  get catalog(): ProfileCatalog {
    return this.deps.catalog;
  }

  get store(): SessionStore {
    return this.deps.store;
  }

  /** Close the session store (abort runs first). */
  close(): void {
    this.jobs.shutdown();
    for (const r of this.active.values()) r.controller.abort();
    this.deps.store.close();
  }

  /** Create a session; its model is resolved now (a clear `config_error` if none) and pinned. */
  createSession(opts: NewSession): Session {
    const profile = this.deps.catalog.get(opts.profileKey);
    if (profile.creation === "system_only") {
      throw new NbError("not_allowed", `Profile ${profile.key} is internal and cannot start a session`);
    }
    return this.openSession(profile, opts);
  }

  /**
   * Create a session of an internal (system_only) profile that a tool runs itself, such as the
   * memory curator; otherwise as createSession (the model is resolved before anything is written).
   */
  createInternalSession(opts: NewSession): Session {
    return this.openSession(this.deps.catalog.get(opts.profileKey), opts);
  }

  private openSession(profile: Profile, opts: NewSession): Session {
    if (opts.project) this.deps.workspace.project(opts.project);
    const model = this.deps.resolveModel(opts.model, profile.key);
    return this.deps.store.createSession({
      profile,
      project: opts.project ?? null,
      title: opts.title,
      mode: opts.mode,
      model: model.ref,
      initial: opts.initial,
      parentSessionId: opts.parentSessionId,
    });
  }

  /** True while a run of this session is active in this process. */
  isRunning(sessionId: string): boolean {
    return this.active.has(sessionId);
  }

  /**
   * Run the session's queued input (a job's flow-back) now if it is idle (here and, as far as the
   * store knows, in every other process) and waits on nobody; returns that run, or null. A running
   * session takes it after its run.
   */
  runQueued(sessionId: string): Promise<RunResult> | null {
    // A session another live process is running takes the input after that run: starting a second
    // run here would interleave two runs in one history.
    if (this.active.has(sessionId) || this.deps.store.session(sessionId).status === "archived") return null;
    if (this.deps.store.liveRunner(sessionId)) return null;
    if (this.pending(sessionId)) return null;
    const next = this.deps.store.queued(sessionId)[0];
    if (!next) return null;
    const input: RunInput = {
      text: next.text,
      intent: queuedIntent(next.kind),
      queueItemId: next.id,
    };
    const run = this.runFrom(sessionId, "followup", input, undefined, undefined);
    this.flowBacks.set(sessionId, run);
    const done = () => {
      if (this.flowBacks.get(sessionId) === run) this.flowBacks.delete(sessionId);
    };
    run.then(done, done);
    return run;
  }

  /** The flow-back run of a session in progress in this process, if any. */
  flowBackRun(sessionId: string): Promise<RunResult> | undefined {
    return this.flowBacks.get(sessionId);
  }

  /** Abort the active run of a session (no-op when none). */
  abort(sessionId: string): void {
    this.active.get(sessionId)?.controller.abort();
  }

  /**
   * One invocation. While a run is active: prompt and followup queue after it, steer is injected
   * before its next model call, continue is refused. While waiting on the user, only settling
   * (see `settle`) moves the session. When idle, every mode starts a run now.
   */
  async invoke(sessionId: string, req: InvokeRequest): Promise<RunResult> {
    const { store } = this.deps;
    const session = store.session(sessionId);
    if (req.mode === "continue" && req.message !== undefined) {
      throw new NbError("invalid_input", "continue takes no message", {
        fields: [{ pointer: "/message", message: "not allowed" }],
      });
    }
    if (req.mode !== "continue" && !req.message?.trim()) {
      throw new NbError("invalid_input", `${req.mode} needs a message`, {
        fields: [{ pointer: "/message", message: "required" }],
      });
    }
    if (session.status === "archived") throw new NbError("conflict", `Session ${sessionId} is archived`);
    // Run by another live process: input waits in the store's queue, which that run takes as a run here would.
    const elsewhere = this.active.has(sessionId) ? null : store.liveRunner(sessionId);
    if (this.active.has(sessionId) || elsewhere) {
      if (req.mode === "continue") {
        throw new NbError(
          "conflict",
          elsewhere ? runningElsewhere(sessionId, elsewhere) : `Session ${sessionId} is already running`,
          { details: { reason: "active_invocation_exists" } },
        );
      }
      // The queue holds text only: context attached to a message goes with a run it starts.
      if (req.attachments?.length) {
        throw new NbError(
          "conflict",
          `Session ${sessionId} is running: send the message with its mentions when the run has ended`,
          { fields: [{ pointer: "/mentions", message: "only with a message that starts a run" }] },
        );
      }
      const kind = req.mode === "steer" ? "steer" : req.mode === "followup" ? "followup" : "prompt";
      store.enqueue(sessionId, kind, req.message as string);
      this.bus.emit({
        type: "queued",
        sessionId,
        queue: kind === "steer" ? "steer" : "followup",
        text: req.message as string,
      });
      return { sessionId, status: "queued", finalMessage: "", steps: 0 };
    }
    const pending = this.pending(sessionId);
    if (pending) {
      throw new NbError(
        "conflict",
        `Session ${sessionId} is waiting on ${pending.kind === "user_input" ? "a question" : "an approval"} (${pending.approvalId}); settle it first`,
        { details: { pending } },
      );
    }
    // Calls left open by a crash (no open request for them) are closed so the run can go on.
    store.abortPendingCalls(sessionId, "The call was interrupted before it finished");
    const input: RunInput | null =
      req.mode === "continue"
        ? null
        : {
            text: req.message as string,
            intent: req.mode === "steer" ? "prompt" : req.mode,
            ...(req.attachments?.length ? { attachments: req.attachments } : {}),
          };
    return this.runFrom(sessionId, req.mode, input, req.model, req.signal, {
      ceiling: req.ceiling,
      caller: req.caller,
    });
  }

  /** The ceiling and caller of the latest run on the active path: a continuation keeps them. */
  private origin(sessionId: string): RunOrigin {
    const e = this.deps.store.latestOnPath(sessionId, "run_start");
    return e?.kind === "run_start" ? { ceiling: e.data.ceiling, caller: e.data.caller } : {};
  }

  /** The call the session is waiting on, if any (see `waitingOn`). */
  pending(sessionId: string): PendingView | null {
    return waitingOn(this.deps.store, sessionId);
  }

  /**
   * Settle what the session waits on: an approved write runs exactly once (ungated) and its real
   * result goes to the model; a rejection becomes an error result; a mode switch or a question is
   * answered by the tool's own executor. Then the run continues. The model is resolved before
   * anything is settled; a continuation that fails later leaves the answer recorded and the session
   * idle, so a `continue` invocation resumes it.
   */
  async settle(
    sessionId: string,
    approvalId: string,
    resolution: Resolution,
    opts: { model?: string; signal?: AbortSignal } = {},
  ): Promise<RunResult> {
    const { store, bus } = this.deps;
    if (this.active.has(sessionId)) throw new NbError("conflict", `Session ${sessionId} is running`);
    const pending = this.pending(sessionId);
    if (!pending || pending.approvalId !== approvalId) {
      throw new NbError(
        "not_found",
        pending
          ? `Session ${sessionId} waits on ${pending.approvalId}, not ${approvalId}`
          : `Session ${sessionId} waits on nothing`,
      );
    }
    // The model the run continues on is resolved first: a missing key or script settles nothing.
    const ctx = buildRunContext(this.deps, sessionId, (session, profile) => {
      try {
        return this.deps.resolveModel(opts.model ?? session.model ?? undefined, profile.key, sessionId);
      } catch (e) {
        if (!isNbError(e)) throw e;
        const what = pending.kind === "user_input" ? "question" : "approval";
        throw new NbError(
          e.code,
          `${e.message.replace(/[.\s]*$/, "")}. Nothing was settled: ${what} ${approvalId} still waits.`,
          { fields: e.fields, details: e.details },
        );
      }
    });
    const { session } = ctx;
    // The session counts as running while the answer is applied, so no other invocation slips in.
    const guard = new AbortController();
    const onAbort = () => guard.abort();
    if (opts.signal?.aborted) guard.abort();
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    this.active.set(sessionId, { controller: guard });
    try {
      const call = store.pendingToolCalls(sessionId).find((c) => c.call.id === pending.callId)!.call;
      const runId = randomUUID();
      const env = stepEnv(this.deps, ctx, runId, readPath(workingPath(store, sessionId)), guard.signal);
      const entries: EntryInput[] = [];

      if (pending.kind === "write") {
        // The decision commits first: a second settle (or another process) gets `conflict`, so the write runs at most once.
        store.settleApproval(approvalId, {
          approved: resolution.approved,
          ...(resolution.reason ? { reason: resolution.reason } : {}),
        });
        if (resolution.approved) {
          // Exactly what the stored preview showed: nothing is re-decided now.
          const basis = store.approval(approvalId).preview.basis;
          const outcome = await runStepCalls([call], { ...env, approved: { callId: call.id, basis } });
          entries.push(...resultEntries(outcome.results));
        } else {
          const why = resolution.reason ? ` Reason: ${resolution.reason.replace(/[.\s]*$/, ".")}` : "";
          const message = `The user rejected this ${call.key} call in ${session.mode} mode; nothing was changed.${why} Do not retry the same write. Stay read-only, or ask for normal mode with switch_mode if the work needs writing.`;
          const result = { ok: false as const, error: { code: "not_allowed" as const, message } };
          entries.push(...resultEntries([{ call, result }]));
          env.onEnd?.(call, result, "rejected by the user");
        }
      } else {
        const outcome = await runStepCalls([call], { ...env, resolutions: new Map([[call.id, resolution]]) });
        if (pending.kind === "switch_mode") {
          entries.push({
            kind: "approval_decision",
            data: {
              approvalId,
              callId: call.id,
              approved: resolution.approved,
              ...(resolution.reason ? { reason: resolution.reason } : {}),
            },
          });
        } else if (resolution.approved && resolution.answer !== undefined) {
          entries.push({ kind: "user_input_answer", data: { callId: call.id, answer: resolution.answer } });
        }
        entries.push(...resultEntries(outcome.results));
        if (outcome.modeChange) {
          entries.push({ kind: "mode_change", data: { ...outcome.modeChange, by: "agent" } });
        }
      }
      announce(bus, sessionId, store.commitStep(sessionId, entries));
      if (store.pendingToolCalls(sessionId).length === 0) store.setStatus(sessionId, "idle");
    } finally {
      this.active.delete(sessionId);
      opts.signal?.removeEventListener("abort", onAbort);
    }
    // An abort while the answer was applied (Ctrl-C, abort()) also stops the run it would continue.
    const origin = this.origin(sessionId);
    const result = await this.runFrom(
      sessionId,
      "continue",
      null,
      opts.model,
      guard.signal.aborted ? guard.signal : opts.signal,
      origin,
    );
    if (origin.caller && result.status !== "waiting") {
      this.collaboration?.childEnded(origin.caller, sessionId, approvalId, result);
    }
    return result;
  }

  /**
   * The user compacts the session now (`/compact [focus]`): everything but the latest entry is
   * summarised on the session's model, keeping what `focus` names. Returns the compaction entry,
   * or null when there was nothing older to summarise or the summary failed (an `error` event says why).
   */
  async compact(sessionId: string, focus?: string, signal?: AbortSignal): Promise<Entry | null> {
    if (this.active.has(sessionId))
      throw new NbError("conflict", `Session ${sessionId} is running; compact it between runs`);
    const waiting = this.pending(sessionId);
    if (waiting)
      throw new NbError(
        "conflict",
        `Session ${sessionId} is waiting on ${waiting.approvalId}; settle it first`,
      );
    const ctx = buildRunContext(this.deps, sessionId, (session, profile) =>
      this.deps.resolveModel(session.model ?? undefined, profile.key, sessionId),
    );
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    this.active.set(sessionId, { controller });
    try {
      const pctx = { ...ctx.prompt, mode: ctx.session.mode };
      return await compact(
        this.deps,
        ctx,
        randomUUID(),
        workingPath(this.deps.store, sessionId),
        pctx,
        controller.signal,
        { revoked: false, runId: null },
        { trigger: "user", ...(focus?.trim() ? { focus: focus.trim() } : {}) },
      );
    } finally {
      this.active.delete(sessionId);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Where the session stands against its budgets (config read now): ok, near a limit, or stopped at one. */
  budget(sessionId: string): BudgetCheck {
    const session = this.deps.store.session(sessionId);
    const project = session.project ? this.deps.workspace.project(session.project) : null;
    return budgetState(
      this.deps.store,
      session,
      loadBudgets(this.deps.workspace.root, project?.root ?? null),
    );
  }

  /** The user changes the mode (`/mode`); recorded as an entry. Returns false when already in it. */
  setMode(sessionId: string, mode: Mode): boolean {
    if (this.active.has(sessionId))
      throw new NbError("conflict", `Session ${sessionId} is running; change the mode between runs`);
    const entry = this.deps.store.changeMode(sessionId, mode, "user");
    if (!entry) return false;
    announce(this.bus, sessionId, [entry]);
    return true;
  }

  /** Move a session back to an entry of its active branch (see rewindSession); refused while it runs here. */
  rewind(sessionId: string, entryId: string, scope: RewindScope): Promise<RewindResult> {
    this.assertStill(sessionId);
    return rewindSession(this.deps.store, this.deps.workspace, sessionId, entryId, scope);
  }

  /** Take back the changes of the session's last turn (`/undo`); refused while it runs here. */
  undo(sessionId: string): Promise<RewindResult> {
    this.assertStill(sessionId);
    return undoLastTurn(this.deps.store, this.deps.workspace, sessionId);
  }

  private assertStill(sessionId: string): void {
    if (this.isRunning(sessionId))
      throw new NbError("conflict", `Session ${sessionId} is running; wait for its turn to end`);
  }

  /** The session's task list (it follows the branch). */
  tasks(sessionId: string): TaskItem[] {
    return this.deps.store.tasks(sessionId);
  }

  /** Run now, then deliver queued prompts and follow-ups one by one while runs complete. */
  private async runFrom(
    sessionId: string,
    invocation: InvokeRequest["mode"],
    input: RunInput | null,
    model: string | undefined,
    signal: AbortSignal | undefined,
    origin: RunOrigin = {},
  ): Promise<RunResult> {
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    if (signal?.aborted) controller.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    const run: ActiveRun = { controller, callerId: origin.caller?.sessionId };
    this.active.set(sessionId, run);
    const control: RunControl = {
      signal: controller.signal,
      fence: { revoked: false, runId: null },
      ...origin,
    };
    const work = (async () => {
      let result = await runOnce(this.deps, sessionId, invocation, input, model, control);
      while (result.status === "completed" && !controller.signal.aborted) {
        const next = this.deps.store.queued(sessionId)[0];
        if (!next) break;
        const intent = queuedIntent(next.kind);
        result = await runOnce(
          this.deps,
          sessionId,
          "followup",
          { text: next.text, intent, queueItemId: next.id },
          model,
          control,
        );
      }
      return result;
    })();
    const bounded = withinAbortGrace(
      work,
      control.signal,
      this.deps.settings.abortGraceMs,
      async (settled) => {
        // Foreground children were aborted with this run and end within their own grace: a parent
        // reports its abort only once they have.
        await this.childrenEnded(sessionId);
        // One turn of the event loop lets this run record what its children returned and end itself.
        await new Promise((resolve) => setImmediate(resolve));
        return settled() ? null : forceEnd(this.deps, sessionId, control.fence);
      },
    );
    run.done = bounded.catch(() => {});
    try {
      return await bounded;
    } finally {
      signal?.removeEventListener("abort", onAbort);
      if (this.active.get(sessionId) === run) this.active.delete(sessionId);
    }
  }

  /** Wait for the runs this session invoked in the foreground and that are still active. */
  private async childrenEnded(sessionId: string): Promise<void> {
    const children = [...this.active.values()].filter((r) => r.callerId === sessionId && r.done);
    await Promise.all(children.map((r) => r.done));
  }
}
