import { z } from "zod";
import { isNbError, NbError } from "../../core/errors.js";
import type { Project } from "../../workspace/project.js";
import type { WriteRecord } from "../../world/api.js";
import { type Calendar, openCalendar } from "../../world/calendar/index.js";
import type { CanonicalWrite } from "../../world/script/canonical.js";
import { runWorldScript, type WorldScriptOutcome } from "../../world/script/run.js";
import { defineTool } from "../define.js";
import type { AnyTool, ToolContext } from "../types.js";
import { worldAccess } from "./access.js";
import { WORLD_BASIS, type WorldBasis } from "./basis.js";
import { worldToolDescription } from "./description.js";
import { changes, previewText, resultText, writesText } from "./format.js";

const Input = z
  .object({
    code: z.string().min(1).max(200_000).describe("a function body; `world` is in scope"),
    project: z.string().min(1).optional().describe("another project of this workspace (default: this one)"),
  })
  .strict();

type WorldInput = z.infer<typeof Input>;

function targetProject(input: WorldInput, ctx: ToolContext): Project {
  if (input.project !== undefined) return ctx.workspace.project(input.project);
  if (!ctx.project)
    throw new NbError("invalid_input", "execute_world needs a current project (or `project`)");
  return ctx.project;
}

/** A calendar string for the preview, or the raw seconds when the calendar cannot format it. */
async function timeLabel(project: Project): Promise<(t: number) => string> {
  let calendar: Calendar | null = null;
  try {
    calendar = await openCalendar(project);
  } catch {
    // A broken calendar.yaml: the preview shows raw seconds.
  }
  return (t) => {
    try {
      return calendar ? `${calendar.format(t)} (t=${t})` : `t=${t}`;
    } catch {
      return `t=${t}`;
    }
  };
}

/** execute_world (seed: "World Engine Tools"): one code tool over the whole World Engine API. */
export const executeWorld = defineTool({
  key: "execute_world",
  group: "world",
  description: worldToolDescription("readwrite"),
  describe: (binding) => worldToolDescription(binding.access === "readwrite" ? "readwrite" : "readonly"),
  input: Input,
  effect: "per-call",
  basis: WORLD_BASIS,
  prepare(input, ctx) {
    const access = worldAccess(ctx);
    // The dry run a preview makes, once: a call it shows to write nothing runs as that dry run.
    let dry: Promise<WorldScriptOutcome> | undefined;
    const dryRun = () => {
      dry ??= runWorldScript(targetProject(input, ctx), input.code, {
        access,
        dryRun: true,
        signal: ctx.signal,
      });
      return dry;
    };
    return {
      effect: access === "readonly" ? "read" : "write",
      targets: null,
      async preview() {
        const o = await dryRun();
        return {
          text: previewText(input.code, o, await timeLabel(targetProject(input, ctx))),
          details: { writes: o.writes, issues: o.issues, data: o.value, console: o.console },
          basis: { tool: "execute_world" as const, clock: o.clock, writes: o.canonical },
          // In a read-only mode only a script that really writes needs the user's approval.
          ...(o.writes.length ? {} : { unchanged: true }),
        };
      },
      async run(grant) {
        const outcome =
          access === "readwrite" && grant.writes === "none"
            ? await dryRun()
            : await runApproved(input, ctx, grant.approval?.basis, grant.changeId);
        if (outcome.dryRun && outcome.writes.length) {
          throw new NbError(
            "approval_required",
            `The script writes to the World Engine and the session is in ${ctx.mode} mode; nothing was stored.`,
          );
        }
        return {
          text: resultText(outcome),
          details: { data: outcome.value, issues: outcome.issues, console: outcome.console },
          change:
            outcome.dryRun || !outcome.writes.length
              ? "unchanged"
              : {
                  targets: null,
                  rows: { before: grant.approval?.basis?.writes ?? null, after: outcome.canonical },
                  summary: `execute_world: ${changes(outcome.writes.length)}`,
                },
        };
      },
    };
  },
});

/**
 * Run the script for real. An approval of a preview replays it with the preview's clock and keeps
 * it only if it makes exactly the writes the preview showed; otherwise it fails with `conflict`,
 * having changed nothing, and shows what the script would do now.
 */
async function runApproved(
  input: WorldInput,
  ctx: ToolContext,
  basis: WorldBasis | undefined,
  changeId: string | undefined,
): Promise<WorldScriptOutcome> {
  const project = targetProject(input, ctx);
  try {
    return await runWorldScript(project, input.code, {
      access: worldAccess(ctx),
      signal: ctx.signal,
      ...(changeId ? { changeId } : {}),
      ...(basis ? { clock: basis.clock, expect: basis.writes } : {}),
    });
  } catch (e) {
    const run = basis && isNbError(e) && e.code === "conflict" ? approvedRunOf(e.details) : undefined;
    if (!basis || !run) throw e;
    const now = run.writes.length
      ? [
          `Now it would make ${changes(run.writes.length)}:`,
          ...writesText({ writes: run.writes, issues: [] }, await timeLabel(project)),
        ]
      : ["Now it would change nothing."];
    throw new NbError(
      "conflict",
      [
        `The script no longer makes the writes its preview showed (${changes(basis.writes.length)}); nothing was stored.`,
        ...now,
        "Run the call again to preview and approve what it does now.",
      ].join("\n"),
      { details: { approved: basis.writes, now: run.canonical } },
    );
  }
}

/** The writes of an approved run that differed from its preview, from a `conflict` of runWorldJob. */
function approvedRunOf(details: unknown): { writes: WriteRecord[]; canonical: CanonicalWrite[] } | undefined {
  const d = details as { approvedRun?: { writes: WriteRecord[]; canonical: CanonicalWrite[] } } | undefined;
  return d?.approvedRun;
}

/** The World Engine tool group. */
export const worldTools: AnyTool[] = [executeWorld];
