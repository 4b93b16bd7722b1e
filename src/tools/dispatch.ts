import { join } from "node:path";
import { type ErrorInfo, NbError, toErrorInfo } from "../core/errors.js";
import type { Mode } from "../core/modes.js";
import { capModelText } from "../core/truncate.js";
import { formatFieldErrors, zodFieldErrors } from "../core/validate.js";
import { newChangeId } from "../history/ids.js";
import { beginRecording, type Recording } from "../history/recording.js";
import { isInside, realPathOf, resolveFileAddress } from "../workspace/paths.js";
import type { Project } from "../workspace/project.js";
import type { Workspace } from "../workspace/workspace.js";
import { type Decision, decide, type TargetReach } from "./pipeline/decide.js";
import { type ChangeRecord, changeRecord } from "./pipeline/record.js";
import type { ToolRegistry } from "./registry.js";
import type {
  AnyTool,
  DispatchResult,
  Prepared,
  RunGrant,
  ToolBinding,
  ToolContext,
  ToolPorts,
  ToolPreview,
  ToolResult,
  ToolSession,
} from "./types.js";
import { worldAccess } from "./world/access.js";
import { assertWriteReach } from "./write-reach.js";

/** Which tools a caller may use: a profile's allowlist (key → binding), or every tool for a trusted user. */
export type Allowlist = ReadonlyMap<string, ToolBinding> | "all";

/** Where and as whom a call runs; one value per door invocation. */
export interface DispatchContext {
  readonly registry: ToolRegistry;
  readonly workspace: Workspace;
  readonly project: Project | null;
  readonly mode: Mode;
  readonly profileKey: string | null;
  readonly allow: Allowlist;
  /** Run this one call whatever the gate says (the user approved it). */
  readonly approved?: boolean;
  /** The stored basis of the preview the user approved; see ToolPreview.basis. */
  readonly approvedBasis?: unknown;
  readonly signal?: AbortSignal;
  readonly session?: ToolSession;
  /** Where the record of each executed write goes (absent: nowhere). */
  readonly onChange?: (record: ChangeRecord) => void;
  /** What the opener lends the tools (see ToolPorts). */
  readonly ports?: ToolPorts;
}

export interface ToolCall {
  key: string;
  input: unknown;
}

/** A validated, authorised, prepared call. */
export interface PreparedCall {
  tool: AnyTool;
  input: unknown;
  ctx: ToolContext;
  prepared: Prepared;
}

/** What the gate made of a call: run it, ask the user (showing the preview), or refuse it. */
export type PlannedCall =
  | { kind: "run"; call: PreparedCall; grant: RunGrant }
  | { kind: "ask"; call: PreparedCall; why: Extract<Decision, { kind: "ask" }>["why"]; preview: ToolPreview }
  | { kind: "refuse"; error: ErrorInfo };

const PLAN_DIR = ".agent/plan/";

/** The plan-mode exemption: every target is a relative Markdown path inside `.agent/plan/`. */
export function isPlanExempt(targets: string[] | null): boolean {
  if (!targets || targets.length === 0) return false;
  return targets.every((raw) => {
    const p = raw.trim().replace(/\\/g, "/").replace(/^\.\//, "");
    if (p.startsWith("/") || p.includes("\0")) return false;
    if (p.split("/").some((s) => s === ".." || s === "." || s === "")) return false;
    return p.startsWith(PLAN_DIR) && p.length > PLAN_DIR.length && p.toLowerCase().endsWith(".md");
  });
}

/** The real folder plan-mode writes under the exemption must stay inside (never through a link). */
export function planRootOf(project: Project): string {
  return join(project.realRoot, ".agent", "plan");
}

/**
 * The exemption as it applies on disk: lexically under `.agent/plan/` and, once symlinks are
 * resolved, really inside the current project's `.agent/plan/` folder. The write itself is held to
 * that folder again when it is made (writeScope in files/common.ts): it may have changed since.
 */
function reachOf(targets: string[] | null, dctx: DispatchContext): TargetReach {
  const project = dctx.project;
  if (!project || !targets || !isPlanExempt(targets)) return "elsewhere";
  const planRoot = planRootOf(project);
  try {
    const inside = targets.every((t) => {
      const real = realPathOf(resolveFileAddress(dctx.workspace, project, t).abs, t);
      return real !== planRoot && isInside(real, planRoot);
    });
    return inside ? "plan" : "elsewhere";
  } catch {
    return "elsewhere";
  }
}

/** An error whose message is capped like any model-facing text. */
function capped(info: ErrorInfo): ErrorInfo {
  return { ...info, message: capModelText(info.message).text };
}

function refuse(code: ErrorInfo["code"], message: string, extra: Partial<ErrorInfo> = {}): PlannedCall {
  return { kind: "refuse", error: capped({ code, message, ...extra }) };
}

/** Host paths that must never reach a model in error text. */
export function hiddenPaths(dctx: Pick<DispatchContext, "workspace" | "project">): string[] {
  const paths = [dctx.workspace.root, dctx.workspace.realRoot];
  if (dctx.project) paths.push(dctx.project.root, dctx.project.realRoot);
  return paths;
}

/** The stored basis of an up-front approval, parsed once by the tool's schema (absent: none stored). */
function storedBasis(tool: AnyTool, dctx: DispatchContext): { basis?: unknown } {
  if (dctx.approvedBasis === undefined) return {};
  if (!tool.basis) return { basis: dctx.approvedBasis };
  const parsed = tool.basis.schema.safeParse(dctx.approvedBasis);
  if (!parsed.success) throw new NbError("conflict", tool.basis.mismatch);
  return { basis: parsed.data };
}

/**
 * Find the tool, validate the input, check the allowlist and the write reach, prepare the call and
 * decide: run, ask the user (with the preview they approve), or refuse. Never throws.
 */
export async function planCall(call: ToolCall, dctx: DispatchContext): Promise<PlannedCall> {
  const tool = dctx.registry.get(call.key);
  if (!tool) return refuse("not_found", `Unknown tool: ${call.key}`);

  const parsed = tool.input.safeParse(call.input ?? {});
  if (!parsed.success) {
    const fields = zodFieldErrors(parsed.error);
    return refuse("invalid_input", `Invalid input for ${tool.key}:\n${formatFieldErrors(fields)}`, {
      fields,
    });
  }

  let binding: ToolBinding = {};
  if (dctx.allow !== "all") {
    const b = dctx.allow.get(tool.key);
    if (!b)
      return refuse(
        "not_allowed",
        `Tool ${tool.key} is not allowed for profile ${dctx.profileKey ?? "(none)"}`,
      );
    binding = b;
  }

  const ctx: ToolContext = {
    workspace: dctx.workspace,
    project: dctx.project,
    mode: dctx.mode,
    profileKey: dctx.profileKey,
    binding,
    worldFiles: worldAccess({
      binding: dctx.allow === "all" ? {} : (dctx.allow.get("execute_world") ?? {}),
      profileKey: dctx.profileKey,
    }),
    signal: dctx.signal,
    session: dctx.session,
    ...(dctx.ports ? { ports: dctx.ports } : {}),
  };

  try {
    const prepared = await tool.prepare(parsed.data, ctx);
    assertWriteReach(tool.key, prepared.targets, ctx);
    const prepCall: PreparedCall = { tool, input: parsed.data, ctx, prepared };
    const approved = dctx.approved === true;
    const d = decide(
      dctx.mode,
      prepared.effect,
      reachOf(prepared.targets, dctx),
      prepared.askAlways,
      approved,
    );
    if (d.kind === "run") {
      const approval = approved ? { approval: storedBasis(tool, dctx) } : {};
      return { kind: "run", call: prepCall, grant: { ...approval, writes: d.writes } };
    }
    // The preview is made once, here: the user approves exactly it, and a call it shows to change
    // nothing runs at once, granted no writes.
    const preview = await previewOf(prepCall);
    if (preview.unchanged === true) return { kind: "run", call: prepCall, grant: { writes: "none" } };
    return { kind: "ask", call: prepCall, why: d.why, preview };
  } catch (e) {
    return { kind: "refuse", error: capped(toErrorInfo(e, hiddenPaths(dctx))) };
  }
}

/** What a write would change, as the user sees it before approving (default: the input as JSON). */
async function previewOf(call: PreparedCall): Promise<ToolPreview> {
  return call.prepared.preview
    ? await call.prepared.preview()
    : { text: JSON.stringify(call.input, null, 2) };
}

/** The asked call, approved by the user against the preview whose `basis` is given. */
export function approve(
  asked: Extract<PlannedCall, { kind: "ask" }>,
  basis: unknown,
): Extract<PlannedCall, { kind: "run" }> {
  return {
    kind: "run",
    call: asked.call,
    grant: { approval: basis === undefined ? {} : { basis }, writes: "any" },
  };
}

/**
 * The `approval_required` error a text door reports for an asked call, with the tool's preview of
 * the change in `details.preview` (its `basis` is what an approval of it must be settled with).
 */
export function approvalRequired(
  asked: Extract<PlannedCall, { kind: "ask" }>,
  dctx: DispatchContext,
): ErrorInfo {
  const { tool, input } = asked.call;
  return capped({
    code: "approval_required",
    message:
      (asked.why === "read-only-mode"
        ? `${tool.key} changes the workspace and the session is in ${dctx.mode} mode (read-only). `
        : `${tool.key} needs the user's approval for every call here. `) +
      `The user must approve this one call.\n${capModelText(asked.preview.text).text}`,
    details: { tool: tool.key, input, preview: asked.preview },
  });
}

/**
 * Run a call the gate lets run, cap its text, and record what a write changed. A write gets its
 * change id before it runs; in a project, its change is recorded in the history (outside edits to
 * its targets first), whatever door it came through.
 */
export async function runPlanned(
  planned: Extract<PlannedCall, { kind: "run" }>,
  dctx: DispatchContext,
): Promise<DispatchResult> {
  const { call, grant } = planned;
  const origin = {
    tool: call.tool.key,
    session: dctx.session?.id ?? null,
    profile: dctx.profileKey,
    callId: dctx.session?.callId ?? null,
  };
  // The history keeps the turn too; the change record (its schema shared with the doors) does not.
  const who = { ...origin, turn: dctx.session?.turn ?? null };
  let recording: Recording | null = null;
  try {
    if (dctx.signal?.aborted) throw new NbError("aborted", "The call was aborted before it started");
    const writes = call.prepared.effect === "write" && grant.writes !== "none";
    const changeId = writes ? newChangeId() : undefined;
    if (changeId && dctx.project)
      recording = await beginRecording(dctx.project, changeId, call.prepared.targets);
    let r: ToolResult;
    try {
      r = await call.prepared.run(changeId ? { ...grant, changeId } : grant);
    } catch (e) {
      // A write that failed half-way may still have changed files: they are its, not outside edits.
      await recording?.finish(who, {
        summary: `${call.tool.key} (failed)`,
        targets: call.prepared.targets,
        rows: false,
      });
      throw e;
    }
    const record = changeId ? changeRecord({ id: changeId, ...origin }, call.prepared, r) : null;
    if (record) {
      await recording?.finish(who, {
        summary: record.summary,
        targets: record.targets,
        rows: record.rows !== undefined,
      });
      dctx.onChange?.(record);
    } else recording?.drop();
    const text = capModelText(r.text);
    const out: DispatchResult = { ok: true, text: text.text };
    if (r.details !== undefined) out.details = r.details;
    if (text.truncated) out.truncated = true;
    return out;
  } catch (e) {
    return { ok: false, error: capped(toErrorInfo(e, hiddenPaths(dctx))) };
  }
}

/**
 * The dispatch of the text doors: plan the call, run it when the gate lets it, else report the
 * refusal or `approval_required`. Never throws; every failure is a result with a stable code.
 */
export async function dispatch(call: ToolCall, dctx: DispatchContext): Promise<DispatchResult> {
  const planned = await planCall(call, dctx);
  if (planned.kind === "refuse") return { ok: false, error: planned.error };
  if (planned.kind === "ask") return { ok: false, error: approvalRequired(planned, dctx) };
  return runPlanned(planned, dctx);
}
