import { join } from "node:path";
import { z } from "zod";
import { readConfigFile } from "../core/config-file.js";
import { NbError } from "../core/errors.js";
import { formatFieldErrors, zodFieldErrors } from "../core/validate.js";
import type { Workspace } from "../workspace/workspace.js";

/** The `workflows` section of the workspace's `.nbook/config.json`. */
export const WorkflowsConfigSchema = z
  .object({
    /** Fan-out width of wf.map / wf.all: the default, and the ceiling (also the run's cap on activities at once). */
    concurrency: z
      .object({
        default: z.number().int().min(1).max(64).optional(),
        max: z.number().int().min(1).max(64).optional(),
      })
      .strict()
      .optional(),
    /** Per-run budget; a run may ask for less, never more. */
    budget: z
      .object({
        maxInvocations: z.number().int().min(1).max(100_000).optional(),
        maxTokens: z.number().int().min(1).optional(),
      })
      .strict()
      .optional(),
    /** Limits of one sandbox pass of a script. */
    passTimeoutMs: z.number().int().min(100).max(600_000).optional(),
    passMemoryMb: z.number().int().min(8).max(512).optional(),
  })
  .strict();

/** A run's budget: agent invocations and tokens it may spend. */
export const BudgetSchema = z
  .object({ maxInvocations: z.number().int().min(1), maxTokens: z.number().int().min(1) })
  .strict();
export type Budget = z.infer<typeof BudgetSchema>;

/** Workflow settings with defaults filled in. */
export interface WorkflowSettings {
  concurrency: { default: number; max: number };
  budget: Budget;
  passTimeoutMs: number;
  passMemoryBytes: number;
}

export const DEFAULT_WORKFLOW_SETTINGS: WorkflowSettings = {
  concurrency: { default: 4, max: 8 },
  budget: { maxInvocations: 60, maxTokens: 2_000_000 },
  passTimeoutMs: 5_000,
  passMemoryBytes: 64 * 1024 * 1024,
};

/** The workspace's workflow settings (`config_error` with pointers when the section is invalid). */
export function workflowSettings(workspace: Pick<Workspace, "root">): WorkflowSettings {
  const raw = readConfigFile(join(workspace.root, ".nbook", "config.json"), ".nbook/config.json").workflows;
  const r = WorkflowsConfigSchema.safeParse(raw ?? {});
  if (!r.success) {
    const fields = zodFieldErrors(r.error, ["workflows"]);
    throw new NbError("config_error", `Invalid .nbook/config.json:\n${formatFieldErrors(fields)}`, {
      fields,
    });
  }
  const d = DEFAULT_WORKFLOW_SETTINGS;
  const max = r.data.concurrency?.max ?? d.concurrency.max;
  return {
    concurrency: { default: Math.min(r.data.concurrency?.default ?? d.concurrency.default, max), max },
    budget: { ...d.budget, ...r.data.budget },
    passTimeoutMs: r.data.passTimeoutMs ?? d.passTimeoutMs,
    passMemoryBytes: (r.data.passMemoryMb ?? d.passMemoryBytes / (1024 * 1024)) * 1024 * 1024,
  };
}

/**
 * The budget of one run: what the caller asked for, capped by the config (`invalid_input` naming the
 * field when a request exceeds it, so nobody believes a larger budget was granted).
 */
export function runBudget(settings: WorkflowSettings, asked: Partial<Budget> | undefined): Budget {
  const fields = [];
  for (const k of ["maxInvocations", "maxTokens"] as const) {
    const v = asked?.[k];
    if (v !== undefined && v > settings.budget[k])
      fields.push({
        pointer: `/budget/${k}`,
        message: `at most ${settings.budget[k]} (the config's workflows.budget.${k})`,
      });
  }
  if (fields.length)
    throw new NbError("invalid_input", `The budget exceeds the config:\n${formatFieldErrors(fields)}`, {
      fields,
    });
  return { ...settings.budget, ...asked };
}
