import type { LanguageModelV3FunctionTool, LanguageModelV3Message } from "@ai-sdk/provider";
import type { Mode } from "../core/modes.js";
import type { Canon } from "../lorebook/canon.js";
import type { PromptContext } from "../profiles/types.js";
import { compact, contextTokens } from "./compaction.js";
import { buildSystem, type PathState, readPath, toMessages } from "./context.js";
import type { RunStatus } from "./events.js";
import { pendingView } from "./pending.js";
import type { HarnessDeps, RunFence } from "./run.js";
import type { RunContext } from "./run-context.js";
import type { RunEnding, RunRecord } from "./run-record.js";
import type { StepOutcome } from "./step.js";
import { requestEntry, resultEntries } from "./step-entries.js";
import type { EntryInput } from "./store/index.js";
import { stepTools } from "./tool-specs.js";

/** What the next model call is sent. */
export interface ModelInput {
  state: PathState;
  system: string;
  messages: LanguageModelV3Message[];
  /** The tool definitions of this step: the always-sent ones and the loaded on-demand sets. */
  tools: LanguageModelV3FunctionTool[];
  /** The canon this call carries at the end of its system prompt (null: none for this profile). */
  canon: Canon | null;
}

/** How a run ends at the point a hook says it does. */
export interface RunVerdict {
  status: RunStatus;
  ending?: RunEnding;
}

/**
 * The points of a turn where the loop hands over, each with one job: what the user queued, the
 * context fitted to the window, the reminder of a result still owed, and the commit of a step.
 */
export interface TurnHooks {
  /** Before a model call: bring in what the user queued for this run (steers). */
  takeQueued(): void;
  /** The next model call's input, compacting the history first when it would not fit the window. */
  modelInput(): Promise<ModelInput>;
  /** After a turn that called no tool: true when the run takes another turn instead of completing. */
  anotherTurn(): boolean;
  /** After a step's calls ran: commit them as one transaction; a verdict when the run ends there. */
  afterStep(assistant: EntryInput, outcome: StepOutcome, toolCalls: number): RunVerdict | null;
}

/** What the hooks of one run work with, beside its context and record. */
export interface TurnSettings {
  mode: Mode;
  systemPrompt: string;
  /** The prompt context the compaction summary is written in. */
  pctx: PromptContext;
  signal: AbortSignal;
  fence: RunFence;
}

const REPORT_STRIKES = 3;
const REMINDER =
  "You ended without calling report_result. Your profile defines a structured result: call report_result now with `result` (and `data` matching the output schema).";

/** The hooks of one run. */
export function turnHooks(deps: HarnessDeps, ctx: RunContext, record: RunRecord, t: TurnSettings): TurnHooks {
  const { store, bus, settings } = deps;
  const { sessionId, runId } = record;
  // A profile with an output schema and a terminal tool to deliver it owes a structured result.
  const owesResult =
    ctx.output !== undefined && deps.registry.list().some((tool) => tool.terminal && ctx.allow.has(tool.key));
  let reminded = false;
  let strikes = 0;
  return {
    takeQueued() {
      for (const item of store.queued(sessionId, "steer")) {
        record.append({ kind: "user", data: { text: item.text, intent: "steer", queueItemId: item.id } });
      }
    },
    async modelInput() {
      let state = readPath(record.path);
      const mode = ctx.modeShown ? t.mode : null;
      let system = buildSystem(t.systemPrompt, mode, state);
      const window = ctx.model.contextWindow;
      const chars = stepTools(ctx.offered, state.loadedSets).chars;
      if (contextTokens(system, chars, state.visible) > settings.compactAt * window) {
        const compacted = await compact(deps, ctx, runId, record.path, t.pctx, t.signal, t.fence);
        if (compacted) {
          record.keep(compacted);
          state = readPath(record.path);
          system = buildSystem(t.systemPrompt, mode, state);
        }
      }
      // Canon goes last: it changes with the working text, and what precedes it stays a stable prefix.
      const canon = ctx.canon ? ctx.canon(state) : null;
      if (canon?.section) system = `${system}\n\n${canon.section}`;
      return {
        state,
        system,
        canon,
        messages: toMessages(state.visible),
        tools: stepTools(ctx.offered, state.loadedSets).tools,
      };
    },
    anotherTurn() {
      if (!owesResult || reminded) return false;
      reminded = true;
      record.append({ kind: "user", data: { text: REMINDER, intent: "prompt" } });
      return true;
    },
    afterStep(assistant, outcome, toolCalls) {
      const entries: EntryInput[] = [assistant, ...resultEntries(outcome.results)];
      if (outcome.tasks) entries.push({ kind: "task_list", data: { tasks: outcome.tasks } });
      if (outcome.pause) entries.push(requestEntry(outcome.pause));
      const committed = record.commitStep(entries);
      bus.emit({ type: "turn_end", sessionId, runId, step: record.steps, toolCalls });
      if (outcome.pause) {
        // The request is the step's last entry; its id is the approval id.
        const request = { id: committed[committed.length - 1].id, kind: outcome.pause.kind };
        const pending = pendingView(request, outcome.pause.call, outcome.pause.preview.text);
        bus.emit({
          type: outcome.pause.kind === "user_input" ? "user_input_required" : "approval_required",
          sessionId,
          runId,
          pending,
        });
        return { status: "waiting", ending: { pending, finalMessage: record.lastText } };
      }
      if (outcome.reported) {
        return {
          status: "completed",
          ending: { finalMessage: outcome.reported.result, data: outcome.reported.data },
        };
      }
      strikes = outcome.reportFailures ? strikes + outcome.reportFailures : 0;
      if (strikes < REPORT_STRIKES) return null;
      return {
        status: "error",
        ending: {
          error: {
            code: "limit_exceeded",
            message: `report_result failed validation ${strikes} times in a row`,
          },
        },
      };
    },
  };
}
