import { join } from "node:path";
import { z } from "zod";
import { readConfigFile } from "../core/config-file.js";
import { NbError } from "../core/errors.js";
import { formatFieldErrors, zodFieldErrors } from "../core/validate.js";

/** A limit in money, tokens (input + output) or both; whichever is reached first stops the run. */
export const LimitSchema = z
  .object({
    usd: z.number().min(0).optional(),
    cny: z.number().min(0).optional(),
    tokens: z.number().int().min(0).optional(),
  })
  .strict();
export type Limit = z.infer<typeof LimitSchema>;

/** The `budgets` section of `.nbook/config.json` (the project's, when it has one, replaces the workspace's per key). */
export const BudgetsSchema = z
  .object({
    /** What one session may spend over its life. */
    session: LimitSchema.optional(),
    /** What all sessions of one project may spend in one UTC day. */
    projectDay: LimitSchema.optional(),
    /** Share of a limit at which a warning is shown (default 0.8). */
    warnAt: z.number().gt(0).lte(1).optional(),
  })
  .strict();
export type Budgets = z.infer<typeof BudgetsSchema>;

/** Spending so far: money per currency and tokens. */
export interface Spend {
  usd: number;
  cny: number;
  tokens: number;
}

export type BudgetScope = "session" | "projectDay";

export interface BudgetCheck {
  state: "ok" | "warn" | "stop";
  /** The first limit reached or near, said plainly. */
  message: string | null;
}

const DIMENSIONS: [keyof Limit, string, (n: number) => string][] = [
  ["usd", "USD", (n) => `$${n.toFixed(4)}`],
  ["cny", "CNY", (n) => `¥${n.toFixed(4)}`],
  ["tokens", "tokens", (n) => `${Math.round(n)} tokens`],
];

const SCOPE_NAME: Record<BudgetScope, string> = {
  session: "session budget",
  projectDay: "project's daily budget",
};
const SCOPE_KEY: Record<BudgetScope, string> = {
  session: "budgets.session",
  projectDay: "budgets.projectDay",
};

/** How to lift a limit that stopped a run: by default, raise its key in the config. */
export type RaiseHint = (scope: BudgetScope, key: keyof Limit) => string;

const raiseInConfig: RaiseHint = (scope, key) => `Raise ${SCOPE_KEY[scope]}.${key} in .nbook/config.json`;

/**
 * Where `spent` stands against `limit`: stop at the limit (a limit of 0 allows no call), warn from
 * `warnAt` of it. A stop says how to lift it (`raise`), then to continue the session.
 */
export function checkBudget(
  scope: BudgetScope,
  limit: Limit | null | undefined,
  spent: Spend,
  warnAt: number,
  raise: RaiseHint = raiseInConfig,
): BudgetCheck {
  if (!limit) return { state: "ok", message: null };
  let warn: string | null = null;
  for (const [key, unit, show] of DIMENSIONS) {
    const cap = limit[key];
    if (cap === undefined) continue;
    const used = spent[key];
    if (used >= cap) {
      return {
        state: "stop",
        message: `The ${SCOPE_NAME[scope]} is used up: ${show(used)} of ${show(cap)} (${unit}). ${raise(scope, key)}, then continue the session.`,
      };
    }
    if (!warn && used >= warnAt * cap)
      warn = `${show(used)} of the ${SCOPE_NAME[scope]} of ${show(cap)} used`;
  }
  return warn ? { state: "warn", message: warn } : { state: "ok", message: null };
}

function parseBudgets(raw: unknown, label: string): Budgets {
  const r = BudgetsSchema.safeParse(raw ?? {});
  if (r.success) return r.data;
  const fields = zodFieldErrors(r.error, ["budgets"]);
  throw new NbError("config_error", `Invalid ${label}:\n${formatFieldErrors(fields)}`, { fields });
}

export const DEFAULT_WARN_AT = 0.8;

/** The budgets of the workspace's and the project's config: the project's `session`, `projectDay` and `warnAt` win. */
export function loadBudgets(workspaceRoot: string, projectRoot: string | null): Budgets {
  const label = ".nbook/config.json";
  const base = parseBudgets(
    readConfigFile(join(workspaceRoot, ".nbook", "config.json"), label).budgets,
    label,
  );
  if (!projectRoot) return base;
  const plabel = "project .nbook/config.json";
  const over = parseBudgets(
    readConfigFile(join(projectRoot, ".nbook", "config.json"), plabel).budgets,
    plabel,
  );
  return { ...base, ...over };
}
