import type { z } from "zod";
import type { ErrorInfo } from "../core/errors.js";
import type { Project } from "../workspace/project.js";
import type { Workspace } from "../workspace/workspace.js";

import type { Mode } from "../core/modes.js";

export { type Mode, MODES } from "../core/modes.js";

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
 * Hooks the harness provides to session-bound tools (tasks, control, result, collaboration).
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
  /** Session-specific services, keyed by name; each session-bound tool group documents its own. */
  readonly services: Readonly<Record<string, unknown>>;
}

/** Everything a tool may use while it runs. */
export interface ToolContext {
  readonly workspace: Workspace;
  /** The current project, or null when the call runs at workspace level. */
  readonly project: Project | null;
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
  /** True when the user approved this one call in a read-only mode. */
  readonly approved: boolean;
  /**
   * The `basis` of the preview the user approved (absent when the call was approved up front,
   * e.g. `nbook tool --approve`). A tool that set one must run exactly what it describes, or fail
   * with `conflict` and change nothing.
   */
  readonly approvedBasis?: unknown;
  readonly signal?: AbortSignal;
  readonly session?: ToolSession;
}

/** What a tool returns: text for the model, structured details for UIs and callers. */
export interface ToolResult {
  text: string;
  details?: unknown;
}

/** What a read-only mode shows the user before a write runs (a diff, rows, slices). */
export interface ToolPreview {
  text: string;
  details?: unknown;
  /**
   * JSON that pins the approval to what this preview showed: the content hashes of the files it
   * diffed, the writes a dry run recorded, the row count a statement would change. Stored with the
   * approval and handed back to `execute` as `ctx.approvedBasis`.
   */
  basis?: unknown;
  /**
   * True when the call would change nothing (a write of a file's own content): the gate lets it run
   * without asking, so its `execute` must then write nothing, whatever changed meanwhile.
   */
  unchanged?: boolean;
}

type MaybePromise<T> = T | Promise<T>;

/** A tool definition; see defineTool. */
export interface ToolDef<S extends z.ZodType = z.ZodType> {
  readonly key: string;
  readonly group: ToolGroup;
  readonly description: string;
  readonly input: S;
  /** Mandatory: does this call change the workspace? A function decides per call. */
  readonly effect: Effect | ((input: z.infer<S>, ctx: ToolContext) => MaybePromise<Effect>);
  readonly execute: (input: z.infer<S>, ctx: ToolContext) => MaybePromise<ToolResult>;
  /** What a write would change, shown when the mode gate stops it. Defaults to the input as JSON. */
  readonly preview?: (input: z.infer<S>, ctx: ToolContext) => MaybePromise<ToolPreview>;
  /**
   * Project-relative paths this call would write, for the plan-mode exemption (`.agent/plan/*.md`).
   * Return null when the targets cannot be known: no exemption then (fail closed).
   */
  readonly writeTargets?: (input: z.infer<S>) => string[] | null;
  /**
   * True when a call needs the user's approval in every mode, normal too (bash where it cannot be
   * confined). Absent: only the mode gate applies (write-effect calls in read-only modes).
   */
  readonly alwaysGated?: (ctx: ToolContext) => MaybePromise<boolean>;
  /** Called with the description a profile binding sees (e.g. readonly execute_world). */
  readonly describe?: (binding: ToolBinding) => string;
  /**
   * True for a tool that works only inside a NeuroBook agent session although its group does not
   * (run_workflow: its agents are the calling session's children); doors without sessions leave it out.
   */
  readonly sessionBound?: boolean;
}

/** A tool of any input type, as stored in the registry. */
export type AnyTool = ToolDef<any>;

/** The value every door gets back from dispatch. */
export type DispatchResult =
  | { ok: true; text: string; details?: unknown; truncated?: boolean }
  | { ok: false; error: ErrorInfo };
