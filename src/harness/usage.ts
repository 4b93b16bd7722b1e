import {
  type BudgetCheck,
  type Budgets,
  checkBudget,
  DEFAULT_WARN_AT,
  type Limit,
  type RaiseHint,
  type Spend,
} from "../models/budgets.js";
import { costOf, priceOf, type Usage } from "../models/prices.js";
import { buildManifest } from "./manifest.js";
import type { HarnessDeps } from "./run.js";
import type { RunContext } from "./run-context.js";
import type { ModelCall, Session, SessionStore, UsageTotals } from "./store/index.js";
import { dayOf } from "./store/index.js";
import type { ModelTurn } from "./stream.js";
import type { ModelInput } from "./turn-hooks.js";

const spendOf = (t: UsageTotals): Spend => ({
  usd: t.usd,
  cny: t.cny,
  tokens: t.inputTokens + t.outputTokens,
});

/** The session's limit: its own (`nbook sessions budget`), which replaces the config's, else the config's. */
export function sessionLimit(
  store: SessionStore,
  sessionId: string,
  budgets: Budgets,
): { limit: Limit | null; from: "session" | "config" } {
  const own = store.sessionBudget(sessionId);
  return own ? { limit: own.limit, from: "session" } : { limit: budgets.session ?? null, from: "config" };
}

/** How to raise a session's own limit: the CLI command and the API route. */
function raiseSession(sessionId: string, from: "session" | "config"): RaiseHint {
  return (_scope, key) => {
    const here = `Raise it for this session with \`nbook sessions budget ${sessionId} --${key} <limit>\` (or --lift; POST /api/sessions/${sessionId}/budget)`;
    return from === "config"
      ? `${here}, or budgets.session.${key} in .nbook/config.json for every session`
      : here;
  };
}

/**
 * Where the session and its project's day stand against the budgets: `stop` when either is used
 * up (checked before each model call, so a call never starts past a limit), `warn` near one.
 */
export function budgetState(
  store: SessionStore,
  session: Pick<Session, "id" | "project">,
  budgets: Budgets,
): BudgetCheck {
  const { limit, from } = sessionLimit(store, session.id, budgets);
  if (!limit && !budgets.projectDay) return { state: "ok", message: null };
  const warnAt = budgets.warnAt ?? DEFAULT_WARN_AT;
  const own = checkBudget(
    "session",
    limit,
    spendOf(store.sessionUsage(session.id)),
    warnAt,
    raiseSession(session.id, from),
  );
  if (own.state === "stop") return own;
  const today = dayOf(new Date().toISOString());
  const day = checkBudget(
    "projectDay",
    budgets.projectDay,
    spendOf(store.projectDayUsage(session.project, today)),
    warnAt,
  );
  if (day.state === "stop") return day;
  return own.state === "warn" ? own : day;
}

/**
 * Store one call's manifest, usage and cost, and announce the session's totals. Without usage
 * from the provider the manifest's counts stand in (marked as not reported).
 */
export function recordModelCall(
  deps: HarnessDeps,
  ctx: RunContext,
  runId: string,
  input: Pick<ModelInput, "system" | "tools" | "messages" | "canon">,
  turn: Pick<ModelTurn, "usage">,
  purpose: ModelCall["purpose"],
): ModelCall {
  const manifest = buildManifest({
    system: input.system,
    tools: input.tools,
    messages: input.messages,
    canon: input.canon,
    counter: ctx.counter,
  });
  const u = turn.usage;
  const reported = u?.inputTokens !== undefined || u?.outputTokens !== undefined;
  const usage: Usage = {
    inputTokens: u?.inputTokens ?? manifest.totalTokens,
    outputTokens: u?.outputTokens ?? 0,
    cacheReadTokens: u?.cacheReadTokens ?? 0,
    cacheWriteTokens: u?.cacheWriteTokens ?? 0,
  };
  const cost = costOf(priceOf(ctx.prices, ctx.model.ref), usage);
  const call = deps.store.recordCall(ctx.session.id, {
    runId,
    model: ctx.model.ref,
    purpose,
    usage,
    reported,
    cost,
    manifest,
  });
  const budget = budgetState(deps.store, ctx.session, ctx.budgets);
  deps.bus.emit({
    type: "usage",
    sessionId: ctx.session.id,
    runId,
    call: call.seq,
    usage,
    cost,
    session: deps.store.sessionUsage(ctx.session.id),
    warning: budget.message,
  });
  return call;
}
