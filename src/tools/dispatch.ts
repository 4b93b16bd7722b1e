import { join } from "node:path";
import { type ErrorInfo, NbError, toErrorInfo } from "../core/errors.js";
import { isReadOnlyMode } from "../core/modes.js";
import { capModelText } from "../core/truncate.js";
import { formatFieldErrors, zodFieldErrors } from "../core/validate.js";
import { isInside, realPathOf, resolveFileAddress } from "../workspace/paths.js";
import type { Project } from "../workspace/project.js";
import type { Workspace } from "../workspace/workspace.js";
import type { ToolRegistry } from "./registry.js";
import type {
  AnyTool,
  DispatchResult,
  Effect,
  Mode,
  ToolBinding,
  ToolContext,
  ToolPreview,
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
  /** Run this one write even in a read-only mode (the user approved it). */
  readonly approved?: boolean;
  /** The basis of the preview the user approved; see ToolPreview.basis. */
  readonly approvedBasis?: unknown;
  readonly signal?: AbortSignal;
  readonly session?: ToolSession;
}

export interface ToolCall {
  key: string;
  input: unknown;
}

/** A validated, authorised call, ready to run (or waiting for approval). */
export interface PlannedCall {
  tool: AnyTool;
  input: unknown;
  effect: Effect;
  ctx: ToolContext;
  /** True when a read-only mode stops this call until the user approves it. */
  needsApproval: boolean;
  /** For a call the gate stopped: the tool's preview, which is what the user approves. */
  preview?: ToolPreview;
}

export { isReadOnlyMode };

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
function planExemptOnDisk(targets: string[] | null, dctx: DispatchContext): boolean {
  const project = dctx.project;
  if (!project || !targets || !isPlanExempt(targets)) return false;
  const planRoot = planRootOf(project);
  try {
    return targets.every((t) => {
      const real = realPathOf(resolveFileAddress(dctx.workspace, project, t).abs, t);
      return real !== planRoot && isInside(real, planRoot);
    });
  } catch {
    return false;
  }
}

/** An error result whose message is capped like any model-facing text. */
function errorResult(info: ErrorInfo): DispatchResult {
  return { ok: false, error: { ...info, message: capModelText(info.message).text } };
}

function fail(code: ErrorInfo["code"], message: string, extra: Partial<ErrorInfo> = {}): DispatchResult {
  return errorResult({ code, message, ...extra });
}

/** Host paths that must never reach a model in error text. */
function hiddenPaths(dctx: DispatchContext): string[] {
  const paths = [dctx.workspace.root, dctx.workspace.realRoot];
  if (dctx.project) paths.push(dctx.project.root, dctx.project.realRoot);
  return paths;
}

/**
 * Steps 1–3 of dispatch: find the tool, validate the input, check the allowlist, decide the effect
 * and whether the mode gate stops it. Returns an error result instead of throwing.
 */
export async function planCall(call: ToolCall, dctx: DispatchContext): Promise<PlannedCall | DispatchResult> {
  const tool = dctx.registry.get(call.key);
  if (!tool) return fail("not_found", `Unknown tool: ${call.key}`);

  const parsed = tool.input.safeParse(call.input ?? {});
  if (!parsed.success) {
    const fields = zodFieldErrors(parsed.error);
    return fail("invalid_input", `Invalid input for ${tool.key}:\n${formatFieldErrors(fields)}`, { fields });
  }

  let binding: ToolBinding = {};
  if (dctx.allow !== "all") {
    const b = dctx.allow.get(tool.key);
    if (!b)
      return fail(
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
    approved: dctx.approved === true,
    ...(dctx.approved && dctx.approvedBasis !== undefined ? { approvedBasis: dctx.approvedBasis } : {}),
    signal: dctx.signal,
    session: dctx.session,
  };

  try {
    assertWriteReach(tool, parsed.data, ctx);
    const effect = typeof tool.effect === "function" ? await tool.effect(parsed.data, ctx) : tool.effect;
    const modeGated =
      effect === "write" &&
      isReadOnlyMode(dctx.mode) &&
      !(
        dctx.mode === "plan" &&
        planExemptOnDisk(tool.writeTargets ? tool.writeTargets(parsed.data) : null, dctx)
      );
    const gated =
      !ctx.approved && (modeGated || (tool.alwaysGated !== undefined && (await tool.alwaysGated(ctx))));
    if (!gated) return { tool, input: parsed.data, effect, ctx, needsApproval: false };
    // The preview is made once, here: the user approves exactly it, and a call it shows to change
    // nothing needs no approval at all.
    const preview = await previewOf(tool, parsed.data, ctx);
    return { tool, input: parsed.data, effect, ctx, needsApproval: preview.unchanged !== true, preview };
  } catch (e) {
    return errorResult(toErrorInfo(e, hiddenPaths(dctx)));
  }
}

/** What a write would change, as the user sees it before approving (default: the input as JSON). */
async function previewOf(tool: AnyTool, input: unknown, ctx: ToolContext): Promise<ToolPreview> {
  return tool.preview ? await tool.preview(input, ctx) : { text: JSON.stringify(input, null, 2) };
}

/** The same planned call, approved by the user against the preview whose `basis` is given. */
export function approvePlanned(planned: PlannedCall, basis: unknown): PlannedCall {
  const ctx: ToolContext = { ...planned.ctx, approved: true };
  return {
    ...planned,
    needsApproval: false,
    ctx: basis === undefined ? ctx : { ...ctx, approvedBasis: basis },
  };
}

/**
 * Build the `approval_required` result for a gated call, with the tool's preview of the change in
 * `details.preview` (its `basis` is what an approval of it must be settled with).
 */
export async function approvalResult(planned: PlannedCall, dctx: DispatchContext): Promise<DispatchResult> {
  const { tool, input, ctx } = planned;
  try {
    const preview = planned.preview ?? (await previewOf(tool, input, ctx));
    return fail(
      "approval_required",
      (isReadOnlyMode(dctx.mode)
        ? `${tool.key} changes the workspace and the session is in ${dctx.mode} mode (read-only). `
        : `${tool.key} needs the user's approval for every call here. `) +
        `The user must approve this one call.\n${capModelText(preview.text).text}`,
      { details: { tool: tool.key, input, preview } },
    );
  } catch (e) {
    // A write that cannot even be previewed would fail anyway: report why.
    return errorResult(toErrorInfo(e, hiddenPaths(dctx)));
  }
}

/** Step 4–5: run a planned call and cap its text. */
export async function runPlanned(planned: PlannedCall, dctx: DispatchContext): Promise<DispatchResult> {
  try {
    if (dctx.signal?.aborted) throw new NbError("aborted", "The call was aborted before it started");
    const r = await planned.tool.execute(planned.input, planned.ctx);
    const capped = capModelText(r.text);
    const out: DispatchResult = { ok: true, text: capped.text };
    if (r.details !== undefined) out.details = r.details;
    if (capped.truncated) out.truncated = true;
    return out;
  } catch (e) {
    return errorResult(toErrorInfo(e, hiddenPaths(dctx)));
  }
}

/**
 * The one dispatch every door uses: validate → allowlist → mode gate → execute → truncate.
 * Never throws; every failure is a result with a stable code.
 */
export async function dispatch(call: ToolCall, dctx: DispatchContext): Promise<DispatchResult> {
  const planned = await planCall(call, dctx);
  if ("ok" in planned) return planned;
  if (planned.needsApproval) return approvalResult(planned, dctx);
  return runPlanned(planned, dctx);
}
