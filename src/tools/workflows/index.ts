import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { validateArgs } from "../../workflows/args.js";
import { listWorkflows } from "../../workflows/catalog.js";
import { runBudget, workflowSettings } from "../../workflows/config.js";
import { followRun, runSummaryText, waitingText } from "../../workflows/follow.js";
import type { RunTarget } from "../../workflows/service.js";
import { sessionService } from "../control/session.js";
import { defineTool } from "../define.js";
import type { JobsService } from "../jobs/service.js";
import { once } from "../once.js";
import type { AnyTool, BasisSpec, ToolContext } from "../types.js";
import {
  agentVisibleModels,
  checkVisibleModel,
  previewBasis,
  runsForCall,
  targetWorkflow,
} from "./context.js";

/** An approval of a run is pinned to the hash of the workflow's source and args its preview showed. */
const WORKFLOW_BASIS: BasisSpec<string> = {
  schema: z.string(),
  mismatch: "The workflow changed after its preview was approved; nothing was run",
};

const RunWorkflowInput = z
  .object({
    workflowKey: z.string().min(1).optional().describe("a workflow from list_workflows"),
    script: z
      .string()
      .min(1)
      .max(200_000)
      .optional()
      .describe(
        "an inline workflow module (export default async function run(wf, args) { … }) instead of a key",
      ),
    args: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("the workflow's args, a JSON object matching its args schema"),
    model: z
      .string()
      .min(1)
      .optional()
      .describe("default model of the agents the run creates (must be visible to agents)"),
    budget: z
      .object({
        maxInvocations: z.number().int().min(1).optional(),
        maxTokens: z.number().int().min(1).optional(),
      })
      .strict()
      .optional()
      .describe("a lower budget than the config's (never higher)"),
    wait: z
      .boolean()
      .optional()
      .describe(
        "true: run in the foreground and return the result (refused for workflows that ask the user)",
      ),
  })
  .strict();
type RunWorkflowInput = z.infer<typeof RunWorkflowInput>;

/** The run target, validated args and budget of a call: what its preview shows and its execution runs. */
async function plan(input: RunWorkflowInput, ctx: ToolContext) {
  if ((input.workflowKey === undefined) === (input.script === undefined))
    throw new NbError("invalid_input", "Give exactly one of workflowKey and script", {
      fields: [
        {
          pointer: input.script === undefined ? "/workflowKey" : "/script",
          message: "exactly one of workflowKey and script",
        },
      ],
    });
  checkVisibleModel(ctx, input.model);
  const budget = runBudget(workflowSettings(ctx.workspace), input.budget);
  if (input.workflowKey !== undefined) {
    const workflow = await targetWorkflow(ctx, input.workflowKey);
    const args = validateArgs(workflow.meta.args, input.args ?? {});
    return {
      target: { workflow } as RunTarget,
      source: workflow.source,
      args,
      budget,
      label: `${workflow.key} (${workflow.meta.title}, ${workflow.file})`,
    };
  }
  return {
    target: { script: input.script! } as RunTarget,
    source: input.script!,
    args: input.args ?? {},
    budget,
    label: "an inline script",
  };
}

export const runWorkflow = defineTool({
  key: "run_workflow",
  group: "workflow",
  description:
    "Run a workflow (list_workflows shows them): a durable, sandboxed multi-agent pipeline whose agents are your children. It spends many model calls, so the user approves every run (a preview shows the workflow, args and budget). By default it runs as a background job: you get a job id at once and the result comes back as a later message — tell the user and end your turn, do not poll. wait:true runs in the foreground and returns the result (refused for workflows that ask the user).",
  input: RunWorkflowInput,
  effect: "write",
  scope: "session",
  basis: WORKFLOW_BASIS,
  prepare: (input, ctx) => {
    const prepared = once(() => plan(input, ctx));
    return {
      effect: "write",
      targets: null,
      askAlways: "spends-budget",
      preview: async () => {
        const p = await prepared();
        const lines = [
          `Run workflow ${p.label}${input.wait ? " in the foreground" : " as a background job"}.`,
          `Args: ${JSON.stringify(p.args, null, 2)}`,
          `Budget: at most ${p.budget.maxInvocations} agent invocations and ${p.budget.maxTokens} tokens.`,
          ...(input.model ? [`Agents' model: ${input.model}`] : []),
          ...(input.script !== undefined ? ["Script:", "```js", input.script, "```"] : []),
        ];
        return {
          text: lines.join("\n"),
          details: { workflowKey: input.workflowKey ?? "inline", args: p.args, budget: p.budget },
          basis: previewBasis(p.source, p.args),
        };
      },
      run: async (grant) => {
        // An approval is checked against the workflow as it is now: it may have changed since the preview.
        const basis = grant.approval?.basis;
        const p = basis === undefined ? await prepared() : await plan(input, ctx);
        if (basis !== undefined && basis !== previewBasis(p.source, p.args))
          throw new NbError(
            "conflict",
            "The workflow changed after its preview was approved; nothing was run",
            {
              details: { preview: true },
            },
          );
        const callerId = ctx.session?.id;
        if (!callerId) throw new NbError("unsupported", "run_workflow works only inside an agent session");
        const jobs = input.wait ? null : sessionService(ctx, "jobs", "run_workflow");
        const { runs, close } = await runsForCall(ctx, "run_workflow");
        let run: Awaited<ReturnType<typeof runs.start>>;
        try {
          run = await runs.start({
            target: p.target,
            args: p.args,
            model: input.model ?? null,
            callerSessionId: callerId,
            mode: ctx.mode,
            budget: p.budget,
          });
        } catch (e) {
          close();
          throw e;
        }
        if (!jobs) {
          try {
            const signal = ctx.signal ?? new AbortController().signal;
            let out = await runs.drive(run.id, signal);
            if (out.status === "waiting") {
              out = await runs.cancel(run.id);
              throw new NbError(
                "conflict",
                `Workflow ${run.workflowKey} asks the user (${waitingText(runs, run.id)}); the foreground run was cancelled. Run it again without wait (a background job) so the user can answer.`,
              );
            }
            return {
              text: runSummaryText(out),
              details: {
                runId: out.id,
                workflowKey: out.workflowKey,
                status: out.status,
                result: out.result,
                error: out.error,
                usage: out.usage,
              },
            };
          } finally {
            close();
          }
        }
        let job: ReturnType<JobsService["start"]>;
        try {
          job = jobs.start({
            kind: "workflow",
            title: `workflow ${run.workflowKey}`,
            ownerSessionId: callerId,
            ...(ctx.session?.callId ? { originCallId: ctx.session.callId } : {}),
            ref: { runId: run.id, workflowKey: run.workflowKey },
            run: async (jctx) => {
              try {
                // A shutdown (the job ends interrupted, or the session store is already closed) leaves
                // the run waiting or resumable; only a cancel cancels it.
                const shuttingDown = () => {
                  try {
                    return jobs.get(jctx.jobId, { sessionId: callerId }).status === "interrupted";
                  } catch {
                    return true;
                  }
                };
                const out = await followRun(runs, run.id, jctx.signal, {
                  suspendOnAbort: shuttingDown,
                  waiting: (text) => {
                    jctx.waiting(text);
                    return undefined;
                  },
                  running: () => jctx.running(),
                });
                if (out.status === "failed")
                  throw new NbError(
                    out.error?.code ?? "internal",
                    `Workflow ${out.workflowKey} (run ${out.id}) failed: ${out.error?.message}`,
                  );
                if (out.status === "cancelled")
                  throw new NbError("aborted", `Workflow run ${out.id} was cancelled`);
                if (out.status !== "completed")
                  throw new NbError(
                    "aborted",
                    `Workflow run ${out.id} stopped with its process (${out.status}); nbook workflows resume ${out.id} continues it`,
                  );
                return {
                  text: runSummaryText(out),
                  data: { runId: out.id, workflowKey: out.workflowKey, result: out.result, usage: out.usage },
                };
              } finally {
                close();
              }
            },
          });
        } catch (e) {
          // The job could not start: the run must not stay behind as running.
          await runs.cancel(run.id);
          close();
          throw e;
        }
        return {
          text: `Workflow ${run.workflowKey} started as background job ${job.id} (run ${run.id}). Its result comes back to you as a message when it ends: tell the user, then end your turn — do not poll.`,
          details: {
            jobId: job.id,
            runId: run.id,
            workflowKey: run.workflowKey,
            status: "started",
            background: true,
          },
        };
      },
    };
  },
});

export const listWorkflowsTool = defineTool({
  key: "list_workflows",
  group: "workflow",
  description:
    "List the workflows you can run with run_workflow (key, title, when to use, phases, args schema; broken ones with the reason) and the models agents may name.",
  input: z.object({}).strict(),
  effect: "read",
  execute: async (_input, ctx) => {
    const all = await listWorkflows(ctx.workspace, ctx.project);
    const models = agentVisibleModels(ctx);
    const lines = all.map((w) =>
      w.status === "ok"
        ? `- ${w.key}: ${w.meta?.title} — ${w.meta?.whenToUse} (phases: ${w.meta?.phases.map((p) => p.key).join(", ")})`
        : `- ${w.key}: BROKEN (${w.file}${w.line ? `:${w.line}` : ""}): ${w.reason}`,
    );
    const text = `Workflows:\n${lines.join("\n") || "(none)"}\n\nModels agents may name: ${models.join(", ") || "(none: leave model out)"}`;
    return {
      text,
      details: {
        workflows: all.map((w) => ({
          key: w.key,
          status: w.status,
          layer: w.layer,
          ...(w.meta
            ? {
                title: w.meta.title,
                description: w.meta.description,
                whenToUse: w.meta.whenToUse,
                phases: w.meta.phases,
                args: w.meta.args,
              }
            : { reason: w.reason, file: w.file, line: w.line ?? null }),
        })),
        models,
      },
    };
  },
});

export const workflowTools: readonly AnyTool[] = [runWorkflow, listWorkflowsTool];
