import {
  APICallError,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type LanguageModelV3Content,
  type LanguageModelV3FinishReason,
  type LanguageModelV3GenerateResult,
  type LanguageModelV3StreamPart,
  type LanguageModelV3StreamResult,
  type LanguageModelV3Usage,
} from "@ai-sdk/provider";
import { NbError } from "../../core/errors.js";
import {
  type ParsedScript,
  type ParsedTurn,
  parseScript,
  readScriptFile,
  type ScriptedTurn,
} from "./format.js";
import { checkExpectations, promptChars } from "./inspect.js";

/** Options of a scripted model. */
export interface ScriptedModelOptions {
  /** Model id reported to the AI SDK (default: the script's `model`, else `script`). */
  modelId?: string;
  /**
   * Index of the first turn to replay, to resume a conversation in a new process. `"history"`:
   * the first call starts at the number of assistant messages in its prompt (exact when every
   * earlier turn left an assistant message: no error-only turns, no compaction calls).
   */
  startAt?: number | "history";
}

/**
 * A real AI SDK `LanguageModelV3` that answers each call with the next turn of a script: text
 * (optionally in chunks), tool calls, usage, or a simulated provider error. Deterministic and
 * offline; a call past the last turn fails with `limit_exceeded`.
 */
export class ScriptedLanguageModel implements LanguageModelV3 {
  readonly specificationVersion = "v3" as const;
  readonly provider = "scripted";
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]> = {};
  /** Every call's options, in order (for tests that assert what the model saw). */
  readonly calls: LanguageModelV3CallOptions[] = [];
  private readonly turns: ParsedTurn[];
  private cursor: number;
  private startFromHistory: boolean;

  constructor(script: ParsedScript, opts: ScriptedModelOptions = {}) {
    this.turns = script.turns;
    this.modelId = opts.modelId ?? script.model ?? "script";
    this.startFromHistory = opts.startAt === "history";
    this.cursor = typeof opts.startAt === "number" ? opts.startAt : 0;
    if (!Number.isInteger(this.cursor) || this.cursor < 0 || this.cursor > this.turns.length) {
      throw new NbError("invalid_input", `startAt must be an integer from 0 to ${this.turns.length}`);
    }
  }

  /** Index of the next turn to replay. */
  get position(): number {
    return this.cursor;
  }

  /** Turns not replayed yet. */
  get remaining(): number {
    return this.turns.length - this.cursor;
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const { turn, index } = this.take(options);
    if (turn.waitForAbort) await waitForAbort(options.abortSignal, index);
    if (turn.error) throw providerError(turn.error, this.modelId);
    const content: LanguageModelV3Content[] = [];
    const text = textOf(turn);
    if (text) content.push({ type: "text", text });
    for (const [i, call] of (turn.toolCalls ?? []).entries()) {
      content.push({
        type: "tool-call",
        toolCallId: call.id ?? callId(index, i),
        toolName: call.name,
        input: JSON.stringify(call.input),
      });
    }
    return {
      content,
      finishReason: finishReason(turn),
      usage: usageOf(turn, options),
      response: { id: `scripted-${index}`, modelId: this.modelId, timestamp: new Date(0) },
      warnings: [],
    };
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const { turn, index } = this.take(options);
    if (turn.error && !textOf(turn)) throw providerError(turn.error, this.modelId);
    const parts = streamParts(turn, index, this.modelId, options);
    const signal = options.abortSignal;
    let next = 0;
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      pull: async (controller) => {
        if (signal?.aborted) {
          controller.error(abortError());
          return;
        }
        if (next < parts.length) {
          controller.enqueue(parts[next++]);
          return;
        }
        if (turn.waitForAbort) {
          await waitForAbort(signal, index).catch((e: unknown) => controller.error(e));
          return;
        }
        controller.close();
      },
    });
    return { stream };
  }

  private take(options: LanguageModelV3CallOptions): { turn: ParsedTurn; index: number } {
    this.calls.push(options);
    if (options.abortSignal?.aborted) throw abortError();
    if (this.startFromHistory) {
      this.startFromHistory = false;
      this.cursor = options.prompt.filter((m) => m.role === "assistant").length;
    }
    const index = this.cursor;
    const turn = this.turns[index];
    if (!turn) {
      throw new NbError(
        "limit_exceeded",
        `Scripted model "${this.modelId}" has no turn ${index + 1}: the script has ${this.turns.length} turn(s) and the conversation asked for more`,
      );
    }
    this.cursor++;
    if (turn.expect) checkExpectations(turn.expect, options, index);
    return { turn, index };
  }
}

/** A scripted model from turns given in code. */
export function scriptedModel(
  turns: ScriptedTurn[] | { model?: string; turns: ScriptedTurn[] },
  opts: ScriptedModelOptions = {},
): ScriptedLanguageModel {
  const raw = Array.isArray(turns) ? { turns } : turns;
  return new ScriptedLanguageModel(parseScript(raw), opts);
}

/** A scripted model replaying a YAML or JSON script file (format: docs/scripted-model.md). */
export function scriptedModelFromFile(path: string, opts: ScriptedModelOptions = {}): ScriptedLanguageModel {
  return new ScriptedLanguageModel(readScriptFile(path), opts);
}

function streamParts(
  turn: ParsedTurn,
  index: number,
  modelId: string,
  options: LanguageModelV3CallOptions,
): LanguageModelV3StreamPart[] {
  const parts: LanguageModelV3StreamPart[] = [
    { type: "stream-start", warnings: [] },
    { type: "response-metadata", id: `scripted-${index}`, modelId, timestamp: new Date(0) },
  ];
  const chunks = turn.text === undefined ? [] : Array.isArray(turn.text) ? turn.text : [turn.text];
  if (chunks.some((c) => c.length > 0)) {
    const id = `text-${index}`;
    parts.push({ type: "text-start", id });
    for (const delta of chunks) if (delta) parts.push({ type: "text-delta", id, delta });
    parts.push({ type: "text-end", id });
  }
  if (turn.error) {
    parts.push({ type: "error", error: providerError(turn.error, modelId) });
    return parts;
  }
  for (const [i, call] of (turn.toolCalls ?? []).entries()) {
    const id = call.id ?? callId(index, i);
    const input = JSON.stringify(call.input);
    parts.push({ type: "tool-input-start", id, toolName: call.name });
    parts.push({ type: "tool-input-delta", id, delta: input });
    parts.push({ type: "tool-input-end", id });
    parts.push({ type: "tool-call", toolCallId: id, toolName: call.name, input });
  }
  if (!turn.waitForAbort) {
    parts.push({ type: "finish", finishReason: finishReason(turn), usage: usageOf(turn, options) });
  }
  return parts;
}

function textOf(turn: ParsedTurn): string {
  if (turn.text === undefined) return "";
  return Array.isArray(turn.text) ? turn.text.join("") : turn.text;
}

function callId(turn: number, i: number): string {
  return `call_${turn + 1}_${i + 1}`;
}

function finishReason(turn: ParsedTurn): LanguageModelV3FinishReason {
  const unified = turn.finishReason ?? (turn.toolCalls?.length ? "tool-calls" : "stop");
  return { unified, raw: unified };
}

function usageOf(turn: ParsedTurn, options: LanguageModelV3CallOptions): LanguageModelV3Usage {
  const outChars =
    textOf(turn).length + (turn.toolCalls ?? []).reduce((n, c) => n + JSON.stringify(c.input).length, 0);
  const input = turn.usage?.inputTokens ?? Math.ceil(promptChars(options) / 4);
  const output = turn.usage?.outputTokens ?? Math.ceil(outChars / 4);
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}

function providerError(message: string, modelId: string): APICallError {
  return new APICallError({
    message,
    url: `scripted://${modelId}`,
    requestBodyValues: {},
    statusCode: 500,
    isRetryable: false,
  });
}

function abortError(): Error {
  return new DOMException("The operation was aborted", "AbortError");
}

function waitForAbort(signal: AbortSignal | undefined, index: number): Promise<never> {
  if (!signal) {
    return Promise.reject(
      new NbError(
        "invalid_input",
        `Scripted turn ${index + 1} waits for an abort, but the call has no abort signal`,
      ),
    );
  }
  return new Promise((_, reject) => {
    if (signal.aborted) reject(abortError());
    else signal.addEventListener("abort", () => reject(abortError()), { once: true });
  });
}
