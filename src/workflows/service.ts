import { NbError } from "../core/errors.js";
import type { Mode } from "../core/modes.js";
import type { Project } from "../workspace/project.js";
import type { Workspace } from "../workspace/workspace.js";
import { checkAnswers } from "./answers.js";
import { validateArgs } from "./args.js";
import type { Workflow } from "./catalog.js";
import { type Budget, runBudget, type WorkflowSettings, workflowSettings } from "./config.js";
import type { ActivityHost } from "./engine/activity-host.js";
import { driveRun } from "./engine/drive.js";
import { DRIVEN, OWNER, ownerAlive } from "./owner.js";
import { describeWorkflowModule } from "./sandbox/index.js";
import type { PendingAsk, RunRecord, WorkflowStore } from "./store/index.js";

/** What to run: a catalog workflow, or an inline script. */
export type RunTarget = { workflow: Workflow } | { script: string };

/** What starting a run takes. */
export interface StartOptions {
  target: RunTarget;
  args?: unknown;
  /** The default model of the agents the run creates (checked against the visible list by the host). */
  model?: string | null;
  callerSessionId?: string | null;
  mode?: Mode;
  budget?: Partial<Budget>;
}

/** A run and what a person or a UI needs to follow it. */
export interface RunView {
  run: Omit<RunRecord, "source">;
  pendingAsks: PendingAsk[];
  participants: ReturnType<WorkflowStore["participants"]>;
  timeline: Array<{ seq: number; kind: string; ok: boolean; ms: number; startedAt: number }>;
}

/**
 * Workflow runs of one workspace (and project): start, drive, answer, cancel, resume, observe.
 * Everything durable is in the WorkflowStore; this object only knows which runs this process drives.
 */
export class WorkflowRuns {
  readonly settings: WorkflowSettings;
  private readonly local = new Map<string, { promise: Promise<RunRecord>; controller: AbortController }>();

  constructor(
    readonly opts: {
      workspace: Workspace;
      project: Project | null;
      store: WorkflowStore;
      host: ActivityHost;
      settings?: WorkflowSettings;
      onUpdate?: (run: RunRecord) => void;
    },
  ) {
    this.settings = opts.settings ?? workflowSettings(opts.workspace);
  }

  get store(): WorkflowStore {
    return this.opts.store;
  }

  /** Validate and record a new run (status running); `drive` executes it. */
  async start(o: StartOptions): Promise<RunRecord> {
    const budget = runBudget(this.settings, o.budget);
    const base = {
      project: this.opts.project?.name ?? null,
      callerSessionId: o.callerSessionId ?? null,
      model: o.model ?? null,
      mode: o.mode ?? "normal",
      budget,
      concurrency: this.settings.concurrency,
    };
    if ("workflow" in o.target) {
      const w = o.target.workflow;
      const args = validateArgs(w.meta.args, o.args ?? {});
      return this.store.createRun({
        ...base,
        workflowKey: w.key,
        title: w.meta.title,
        file: w.file,
        source: w.source,
        phases: w.meta.phases,
        args,
      });
    }
    const described = (await describeWorkflowModule(o.target.script, "workflow.js")) as Record<
      string,
      unknown
    >;
    if (!described.hasRun)
      throw new NbError(
        "invalid_input",
        "The script needs a default export: export default async function run(wf, args) { … }",
        {
          fields: [{ pointer: "/script", message: "no default export function" }],
        },
      );
    const schema = described.args;
    const args =
      schema && typeof schema === "object"
        ? validateArgs(schema as Record<string, unknown>, o.args ?? {})
        : (o.args ?? {});
    return this.store.createRun({
      ...base,
      workflowKey: "inline",
      title: typeof described.title === "string" ? described.title : "Inline workflow",
      file: "(inline)",
      source: o.target.script,
      phases: Array.isArray(described.phases) ? (described.phases as RunRecord["phases"]) : [],
      args,
    });
  }

  /**
   * Execute a run until it completes, fails, is cancelled or waits on the user. A run another live
   * process drives is refused (`conflict`); one whose process died is taken over and resumes from
   * its journal.
   */
  drive(runId: string, signal?: AbortSignal, suspendOnAbort?: () => boolean): Promise<RunRecord> {
    const mine = this.local.get(runId);
    if (mine) return mine.promise;
    const run = this.store.run(runId);
    if (run.status !== "running")
      throw new NbError(
        "conflict",
        `Run ${runId} is ${run.status}${run.status === "waiting" ? ": answer its questions first" : ""}`,
      );
    if (DRIVEN.has(runId))
      throw new NbError("conflict", `Run ${runId} is already being driven in this process`);
    if (!this.store.claim(runId, OWNER, (other) => ownerAlive(other, runId)))
      throw new NbError("conflict", `Run ${runId} is being driven by another process (${run.owner})`);
    DRIVEN.add(runId);
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    const promise = driveRun(
      {
        store: this.store,
        host: this.opts.host,
        settings: this.settings,
        owner: OWNER,
        onUpdate: this.opts.onUpdate,
        suspendOnAbort,
      },
      runId,
      controller.signal,
    ).finally(() => {
      signal?.removeEventListener("abort", onAbort);
      this.local.delete(runId);
      DRIVEN.delete(runId);
    });
    this.local.set(runId, { promise, controller });
    return promise;
  }

  /** Answer every pending question of a waiting run (validated; nothing written on error); it is running again. */
  answer(runId: string, answers: unknown): RunRecord {
    const run = this.store.run(runId);
    if (run.status !== "waiting")
      throw new NbError("conflict", `Run ${runId} is ${run.status}, not waiting on answers`);
    const checked = checkAnswers(this.store.asks(runId), answers);
    this.store.answerAsks(runId, checked);
    return this.store.run(runId);
  }

  /**
   * Cancel a run: a waiting run (or one no live process drives) is cancelled at once; one running
   * here is aborted; one running in another process is asked to stop and stops at its next check.
   */
  async cancel(runId: string): Promise<RunRecord> {
    const run = this.store.run(runId);
    if (run.status === "completed" || run.status === "failed" || run.status === "cancelled") return run;
    const mine = this.local.get(runId);
    if (mine) {
      this.store.update(runId, { cancelRequested: true });
      mine.controller.abort();
      return mine.promise;
    }
    if (run.status === "running" && run.owner && ownerAlive(run.owner, runId))
      return this.store.update(runId, { cancelRequested: true });
    this.store.setAsks(runId, []);
    return this.store.update(runId, { status: "cancelled", cancelRequested: true, owner: null });
  }

  /** The run with its pending asks, participants and activity timeline. */
  view(runId: string): RunView {
    return runView(this.store, runId);
  }
}

/** A run with its pending asks, participants and activity timeline (what `show` and a UI display). */
export function runView(store: WorkflowStore, runId: string): RunView {
  const { source: _source, ...run } = store.run(runId);
  return {
    run,
    pendingAsks: store.asks(runId),
    participants: store.participants(runId),
    timeline: store.timeline(runId).map((e) => ({
      seq: e.seq,
      kind: e.kind,
      ok: e.ok,
      ms: e.endedAt - e.startedAt,
      startedAt: e.startedAt,
    })),
  };
}
