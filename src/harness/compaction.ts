import { generateText, type LanguageModel, type LanguageModelUsage } from "ai";
import { NbError, toErrorInfo } from "../core/errors.js";
import type { PromptContext } from "../profiles/types.js";
import { type SummaryRequest, type SummaryWindow, summarizeInBounds } from "./bounded-summary.js";
import { readPath, toMessages } from "./context.js";
import type { HarnessDeps, RunFence } from "./run.js";
import type { RunContext } from "./run-context.js";
import type { Entry } from "./store/schema.js";
import { type ModelTurn, withModelCallSlot } from "./stream.js";
import { budgetState, recordModelCall } from "./usage.js";

const sizes = new WeakMap<Entry, number>();

/** Estimated tokens of one entry as the model would see it (4 characters per token; cached, entries never change). */
export function entryTokens(e: Entry): number {
  let n = sizes.get(e);
  if (n === undefined) {
    n = Math.ceil(JSON.stringify(e.data).length / 4);
    sizes.set(e, n);
  }
  return n;
}

/** Estimated tokens of a model call: system prompt, tool definitions and the visible entries. */
export function contextTokens(system: string, toolChars: number, visible: readonly Entry[]): number {
  let n = Math.ceil((system.length + toolChars) / 4);
  for (const e of visible) n += entryTokens(e);
  return n;
}

/**
 * Where to cut: keep the newest entries that fit in `keepTokens`, never starting at a tool result
 * (its call would be cut off from it). Returns the index of the first kept entry, or null when
 * there is nothing older worth summarising.
 */
export function chooseCut(visible: readonly Entry[], keepTokens: number): number | null {
  let kept = 0;
  let cut = visible.length;
  for (let i = visible.length - 1; i >= 0; i--) {
    const t = entryTokens(visible[i]);
    if (kept + t > keepTokens && cut < visible.length) break;
    kept += t;
    cut = i;
  }
  while (cut > 0 && cut < visible.length && visible[cut].kind === "tool_result") cut--;
  // Always keep at least the latest entry verbatim; summarising nothing is pointless.
  if (cut >= visible.length) cut = visible.length - 1;
  const older = visible
    .slice(0, cut)
    .filter((e) => e.kind === "user" || e.kind === "assistant" || e.kind === "tool_result");
  return older.length === 0 ? null : cut;
}

/** Entries as a plain transcript for the summariser, one line per message part. */
function transcriptLines(entries: readonly Entry[]): string[] {
  const lines: string[] = [];
  for (const m of toMessages(entries)) {
    if (m.role === "user") {
      lines.push(`USER: ${m.content.map((p) => (p.type === "text" ? p.text : "")).join("")}`);
    } else if (m.role === "assistant") {
      for (const p of m.content) {
        if (p.type === "text") lines.push(`ASSISTANT: ${p.text}`);
        else if (p.type === "tool-call")
          lines.push(`ASSISTANT CALLS ${p.toolName} ${JSON.stringify(p.input)}`);
      }
    } else if (m.role === "tool") {
      for (const p of m.content) {
        if (p.type !== "tool-result") continue;
        const v =
          p.output.type === "text" || p.output.type === "error-text"
            ? p.output.value
            : JSON.stringify(p.output);
        lines.push(`RESULT ${p.toolName}: ${v.length > 2000 ? `${v.slice(0, 2000)}…` : v}`);
      }
    }
  }
  return lines;
}

/** The usage the AI SDK reports for one request, in the shape a model call is recorded with. */
function turnUsage(u: LanguageModelUsage): ModelTurn["usage"] {
  return {
    inputTokens: u.inputTokens,
    outputTokens: u.outputTokens,
    cacheReadTokens: u.inputTokenDetails?.cacheReadTokens,
    cacheWriteTokens: u.inputTokenDetails?.cacheWriteTokens,
  };
}

/**
 * Summarise older history with the summarizer profile's prompt on the session's model, in requests
 * that each fit the model's window (see summarizeInBounds). `beforeCall` runs before each request
 * (it may refuse it by throwing) and `onCall` after each one the provider answered.
 */
export async function summarize(opts: {
  model: LanguageModel;
  system: string;
  previousSummary: string | null;
  entries: readonly Entry[];
  window: SummaryWindow;
  signal?: AbortSignal;
  maxRetries: number;
  beforeCall?: () => void;
  onCall?: (request: SummaryRequest, usage: ModelTurn["usage"]) => void;
}): Promise<string> {
  return summarizeInBounds({
    system: opts.system,
    previousSummary: opts.previousSummary,
    lines: transcriptLines(opts.entries),
    window: opts.window,
    ask: async (request) => {
      opts.beforeCall?.();
      const r = await withModelCallSlot(opts.signal, () =>
        generateText({
          model: opts.model,
          system: request.system,
          prompt: request.prompt,
          maxOutputTokens: request.maxOutputTokens,
          abortSignal: opts.signal,
          maxRetries: opts.maxRetries,
        }),
      );
      opts.onCall?.(request, turnUsage(r.usage));
      return r.text;
    },
  });
}

/**
 * Why a compaction runs: `auto` when the context nears the window (the newest `keepRecent` share
 * stays verbatim), `user` for `/compact [focus]` (everything but the latest entry is summarised,
 * keeping what `focus` names).
 */
export interface CompactionRequest {
  trigger: "auto" | "user";
  focus?: string;
}

/**
 * Summarise older history into a compaction entry; null when there is nothing to cut or it failed.
 * Each summariser request is a model call of the session like a turn: checked against the budgets
 * before it starts and recorded (manifest, usage, cost; purpose `compaction`) once answered.
 */
export async function compact(
  deps: HarnessDeps,
  ctx: RunContext,
  runId: string,
  path: Entry[],
  pctx: PromptContext,
  signal: AbortSignal,
  fence: RunFence,
  how: CompactionRequest = { trigger: "auto" },
): Promise<Entry | null> {
  const sessionId = ctx.session.id;
  const resolved = ctx.model;
  const state = readPath(path);
  const keep = how.trigger === "user" ? 0 : Math.floor(deps.settings.keepRecent * resolved.contextWindow);
  const cut = chooseCut(state.visible, keep);
  if (cut === null) return null;
  try {
    const summarizer = deps.catalog.get("summarizer");
    const base = summarizer.systemPrompt({ ...pctx, initial: {}, toolKeys: [] });
    const summary = await summarize({
      model: resolved.model,
      // The focus is the user's own words (`/compact <focus>`), said to the summarizer as theirs.
      system: how.focus
        ? `${base}\n\nThe user asked that the summary keep in particular: ${how.focus}`
        : base,
      previousSummary: state.summary,
      entries: state.visible.slice(0, cut),
      window: resolved,
      signal,
      maxRetries: deps.settings.maxRetries,
      beforeCall: () => {
        const budget = budgetState(deps.store, ctx.session, ctx.budgets);
        if (budget.state === "stop") throw new NbError("limit_exceeded", budget.message as string);
      },
      onCall: (request, usage) => {
        // A run another has taken over writes nothing more, as after a turn.
        if (fence.revoked) return;
        const messages = [
          { role: "user" as const, content: [{ type: "text" as const, text: request.prompt }] },
        ];
        recordModelCall(
          deps,
          ctx,
          runId,
          { system: request.system, tools: [], messages, canon: null },
          { usage },
          "compaction",
        );
      },
    });
    if (fence.revoked) return null;
    const entry = deps.store.append(sessionId, {
      kind: "compaction",
      data: { summary, firstKeptEntryId: state.visible[cut].id },
    });
    deps.bus.emit({ type: "compacted", sessionId, runId, summarizedEntries: cut, trigger: how.trigger });
    return entry;
  } catch (e) {
    // The call proceeds uncompacted; a provider that rejects the size will say so.
    deps.bus.emit({ type: "error", sessionId, runId, error: toErrorInfo(e) });
    return null;
  }
}
