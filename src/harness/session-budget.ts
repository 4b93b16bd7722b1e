import { z } from "zod";
import { NbError } from "../core/errors.js";
import { formatFieldErrors, zodFieldErrors } from "../core/validate.js";
import { type Budgets, LimitSchema, loadBudgets } from "../models/budgets.js";
import type { Workspace } from "../workspace/workspace.js";
import { dayOf, type SessionStore, UsageTotalsSchema } from "./store/index.js";
import { budgetState, sessionLimit } from "./usage.js";

/**
 * A change to a session's own budget: new values for some limits (the others stay as they are
 * now), `lift` (no session limit), or `reset` (the config's applies again).
 */
export const BudgetChangeSchema = z
  .object({
    usd: z.number().min(0).optional(),
    cny: z.number().min(0).optional(),
    tokens: z.number().int().min(0).optional(),
    lift: z.literal(true).optional(),
    reset: z.literal(true).optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    const kinds = [c.usd !== undefined || c.cny !== undefined || c.tokens !== undefined, c.lift, c.reset];
    if (kinds.filter(Boolean).length !== 1)
      ctx.addIssue({
        code: "custom",
        path: [],
        message: "give new limits (usd, cny, tokens), lift or reset",
      });
  });
export type BudgetChange = z.infer<typeof BudgetChangeSchema>;

/** Where a session stands: its limit and where it comes from, its project's day, and the verdict. */
export const BudgetStatusSchema = z
  .object({
    state: z.enum(["ok", "warn", "stop"]),
    message: z.string().nullable(),
    session: z
      .object({
        limit: LimitSchema.nullable(),
        from: z.enum(["session", "config"]),
        spent: UsageTotalsSchema,
      })
      .strict(),
    projectDay: z
      .object({ limit: LimitSchema.nullable(), day: z.string(), spent: UsageTotalsSchema })
      .strict(),
  })
  .strict();
export type BudgetStatus = z.infer<typeof BudgetStatusSchema>;

function budgetsOf(workspace: Workspace, project: string | null): Budgets {
  return loadBudgets(workspace.root, project ? workspace.project(project).root : null);
}

/** The budget status of a session, with the config as it is now. */
export function sessionBudgetStatus(
  store: SessionStore,
  workspace: Workspace,
  sessionId: string,
): BudgetStatus {
  const session = store.session(sessionId);
  const budgets = budgetsOf(workspace, session.project);
  const day = dayOf(new Date().toISOString());
  return {
    ...budgetState(store, session, budgets),
    session: { ...sessionLimit(store, sessionId, budgets), spent: store.sessionUsage(sessionId) },
    projectDay: {
      limit: budgets.projectDay ?? null,
      day,
      spent: store.projectDayUsage(session.project, day),
    },
  };
}

/**
 * Raise, lower, lift or reset a session's own budget (it replaces the config's `budgets.session`
 * for this session only); the next run of the session is checked against it. Returns the status.
 */
export function changeSessionBudget(
  store: SessionStore,
  workspace: Workspace,
  sessionId: string,
  input: unknown,
): BudgetStatus {
  const r = BudgetChangeSchema.safeParse(input);
  if (!r.success) {
    const fields = zodFieldErrors(r.error, []);
    throw new NbError("invalid_input", `Invalid budget change:\n${formatFieldErrors(fields)}`, { fields });
  }
  const change = r.data;
  if (change.reset) store.clearSessionBudget(sessionId);
  else if (change.lift) store.setSessionBudget(sessionId, null);
  else {
    const session = store.session(sessionId);
    const { limit } = sessionLimit(store, sessionId, budgetsOf(workspace, session.project));
    const { lift: _l, reset: _r, ...given } = change;
    store.setSessionBudget(sessionId, { ...(limit ?? {}), ...given });
  }
  return sessionBudgetStatus(store, workspace, sessionId);
}
