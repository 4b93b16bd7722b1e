import type { z } from "zod";
import type { ErrorInfo } from "../core/errors.js";
import type { Mode } from "../core/modes.js";
import type { Harness } from "../harness/loop.js";
import type { WorkflowRuns } from "../workflows/service.js";
import type { Project } from "../workspace/project.js";
import type { Workspace } from "../workspace/workspace.js";
import type { CollaborationService } from "./collaboration/service.js";
import type { ControlService } from "./control/service.js";
import type { JobsService } from "./jobs/service.js";
import type { ChangeReport } from "./pipeline/record.js";
import type { ResultService } from "./result/index.js";
import type { TaskService } from "./tasks/service.js";

/** Whether a call changes the workspace. */
export type Effect = "read" | "write";

/** Tool groups, as in the seed's tool table. */
export type ToolGroup =
  | "files"
  | "collaboration"
  | "control"
  | "tasks"
  | "plot"
  | "world"
  | "workflow"
  | "jobs"
  | "sql"
  | "web"
  | "research"
  | "memory"
  | "result";

/** Options an allowlist entry attaches to one tool for one profile (e.g. `{ access: "readonly" }`). */
export type ToolBinding = Readonly<Record<string, unknown>>;

/**
 * Hooks the harness provides to session-bound tools (tasks, control, result, collaboration, jobs).
 * Outside a session (CLI, MCP) it is absent and those tools answer `unsupported`.
 */
export interface ToolSession {
  readonly id: string;
  readonly profileKey: string;
  /** The session's `initial` values (validated by its profile), e.g. the subject an actor is bound to. */
  readonly initial: Readonly<Record<string, unknown>>;
  /**
   * The payload of the invocation being run (the latest one given), validated by the profile's
   * payload schema; absent when none was. A tool bound with `target` writes only the file it names.
   */
  readonly payload?: Readonly<Record<string, unknown>>;
  /** The id of the tool call being run (a background job records the call that started it). */
  readonly callId?: string;
  /** The turn being run: the session entry id of the user message that began it (the history keeps it). */
  readonly turn?: string;
  /** What the session lends its tools; a door without one leaves it out. */
  readonly services: SessionServices;
}

/**
 * Capabilities of the layers above the tools, injected by whoever opens a door (the runtime), so
 * the tools never import the harness or the workflow engine that themselves drive tools.
 */
export interface ToolPorts {
  /** A harness to run subject memory's curator in (`subject_memory_update`), let go when done. */
  readonly curator?: (ctx: ToolContext) => Promise<{ harness: Harness; close(): void }>;
  /** Workflow runs whose agents are the calling session's children (`run_workflow`). */
  readonly workflowRuns?: (
    ctx: ToolContext,
    collab: CollaborationService,
  ) => Promise<{ runs: WorkflowRuns; close(): void }>;
}

/** The services a session gives its session-bound tools, one per tool group that needs one. */
export interface SessionServices {
  readonly tasks?: TaskService;
  readonly control?: ControlService;
  readonly result?: ResultService;
  readonly collab?: CollaborationService;
  readonly jobs?: JobsService;
}

/** Everything a tool may use while it is prepared and run. */
export interface ToolContext {
  readonly workspace: Workspace;
  /** The current project, or null when the call runs at workspace level. */
  readonly project: Project | null;
  /** The session's mode, for what a tool hands on (a workflow's agents); the gate is dispatch's. */
  readonly mode: Mode;
  /** The profile running the call, or null for a trusted local user (CLI without --profile). */
  readonly profileKey: string | null;
  /** The binding from the profile's allowlist entry for this tool (empty when none). */
  readonly binding: ToolBinding;
  /**
   * How the caller may touch the project's `world-engine/` files (schema, calendar): they belong to
   * the World Engine, so this is the caller's World Engine access (its `execute_world` binding),
   * whatever tool writes — the file tools and bash alike.
   */
  readonly worldFiles: "readonly" | "readwrite";
  readonly signal?: AbortSignal;
  readonly session?: ToolSession;
  /** What the layer that opened this door lends its tools (absent: a tool needing one says so). */
  readonly ports?: ToolPorts;
}

/** What a tool returns: text for the model, structured details for UIs and callers. */
export interface ToolResult {
  text: string;
  details?: unknown;
  /**
   * What a write-effect call changed, which the pipeline turns into its ChangeRecord;
   * `"unchanged"` when it changed nothing (then there is none). Absent: the call's targets changed.
   */
  change?: ChangeReport | "unchanged";
}

/** What a read-only mode shows the user before a write runs (a diff, rows, slices). */
export interface ToolPreview<B = unknown> {
  text: string;
  details?: unknown;
  /**
   * JSON that pins the approval to what this preview showed: the content hashes of the files it
   * diffed, the writes a dry run recorded, the row count a statement would change. Stored with the
   * approval and handed back to `run` as `approval.basis` (parsed by the tool's basis schema).
   */
  basis?: B;
  /**
   * True when the call would change nothing (a write of a file's own content): the gate lets it run
   * without asking, granting it no writes, so its `run` must then write nothing, whatever changed meanwhile.
   */
  unchanged?: boolean;
}

type MaybePromise<T> = T | Promise<T>;

/** Why a call asks the user in every mode, normal too. */
export type AskAlways =
  /** bash where it cannot be confined: a command could do anything this process can. */
  | "unconfined"
  /** A workflow run: it spends many model calls. */
  | "spends-budget";

/**
 * Where a granted run may write: anywhere; only inside the project's `.agent/plan/` (plan mode's
 * exemption, held again when each write is made); or nowhere (a read in a read-only mode, or a
 * write whose preview showed no change).
 */
export type WriteGrant = "any" | "plan" | "none";

/** What the pipeline hands a prepared call's `run`. */
export interface RunGrant<B = unknown> {
  /** Present when the user approved this call: `basis` is the approved preview's, when it had one. */
  readonly approval?: { readonly basis?: B };
  readonly writes: WriteGrant;
  /**
   * The history change this run's writes belong to, set by the pipeline before a write runs:
   * database writes log their rows under it, in their own transaction.
   */
  readonly changeId?: string;
}

/**
 * A call worked out against the workspace as it is now, before anything changes: what it would
 * touch, and how to show and to make the change. `run` reuses what was resolved here.
 */
export interface Prepared<B = unknown> {
  readonly effect: Effect;
  /**
   * Project-relative paths this call would write (the plan-mode exemption, the write reach);
   * null when they cannot be known: no exemption then (fail closed).
   */
  readonly targets: string[] | null;
  readonly askAlways?: AskAlways;
  /** What a write would change, shown when the gate asks. Defaults to the input as JSON. */
  preview?(): MaybePromise<ToolPreview<B>>;
  run(grant: RunGrant<B>): Promise<ToolResult>;
}

/** How a tool's approvals are pinned: the schema of its preview's basis, and what a mismatch says. */
export interface BasisSpec<B> {
  readonly schema: z.ZodType<B>;
  /** The `conflict` message for a stored basis that does not parse. */
  readonly mismatch: string;
}

/** A tool definition; see defineTool. */
export interface ToolDef<S extends z.ZodType = z.ZodType, B = unknown> {
  readonly key: string;
  readonly group: ToolGroup;
  readonly description: string;
  readonly input: S;
  /** What every call does, or `per-call` when each call's `prepare` says (declared for doors that advertise it). */
  readonly effect: Effect | "per-call";
  readonly prepare: (input: z.infer<S>, ctx: ToolContext) => MaybePromise<Prepared<B>>;
  readonly basis?: BasisSpec<B>;
  /** `session`: the tool works only inside a NeuroBook agent session; doors without sessions leave it out. */
  readonly scope: "any" | "session";
  /** `sequential`: it touches the session or its links, so a step that has it runs its calls in order. */
  readonly ordering: "parallel" | "sequential";
  /** True for the call that ends the run with its result (report_result). */
  readonly terminal?: boolean;
  /** Called with the description a profile binding sees (e.g. readonly execute_world). */
  readonly describe?: (binding: ToolBinding) => string;
}

/** A tool of any input type, as stored in the registry. */
export type AnyTool = ToolDef<any, any>;

/** The value every door gets back from dispatch. */
export type DispatchResult =
  | { ok: true; text: string; details?: unknown; truncated?: boolean }
  | { ok: false; error: ErrorInfo };
