import {
  getErrorMessage,
  type LanguageModelV3,
  type LanguageModelV3FunctionTool,
  type LanguageModelV3Message,
  type LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import { RetryError } from "ai";
import { type ErrorInfo, toErrorInfo } from "../core/errors.js";
import { Slots } from "../jobs/slots.js";
import { DEFAULT_MAX_CONCURRENT_MODEL_CALLS } from "../models/config.js";
import { isModelTimeout } from "../models/timeouts.js";
import { isTransient, withRetries } from "./retry.js";
import type { ToolCall } from "./store/schema.js";

/**
 * Model calls in flight at once in this process (`agent.maxConcurrentModelCalls`): every session,
 * child agent and background job shares these slots, so fan-out cannot flood a provider.
 */
const modelCallSlots = new Slots(DEFAULT_MAX_CONCURRENT_MODEL_CALLS);

/** Set how many model calls this process makes at once; calls waiting for a slot get in when it grew. */
export function setMaxConcurrentModelCalls(limit: number): void {
  modelCallSlots.setLimit(limit);
}

/**
 * Run a model request made outside callModel (a compaction summary) under the same cap; rejects
 * with `aborted` when the signal fires while it waits for a slot.
 */
export async function withModelCallSlot<T>(
  signal: AbortSignal | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  const release = await modelCallSlots.acquire(signal);
  try {
    return await fn();
  } finally {
    release();
  }
}

/** Model calls of this process in flight now, and the limit. */
export function modelCallLoad(): { inFlight: number; limit: number } {
  return { inFlight: modelCallSlots.inUse, limit: modelCallSlots.limit };
}

/** What one model call produced. `error`/`aborted` mean the stream was cut; `text` keeps what arrived. */
export interface ModelTurn {
  text: string;
  toolCalls: ToolCall[];
  usage?: {
    inputTokens?: number;
    outputTokens?: number;
    cacheReadTokens?: number;
    cacheWriteTokens?: number;
  };
  error: ErrorInfo | null;
  aborted: boolean;
}

/**
 * Provider errors carry URLs, bodies and keys in odd places: keep only a short message for the model
 * and the log. An error part of a stream may be a plain object (an OpenAI-style `{message, type}`).
 * A call that failed after retries says how many attempts it made; a timeout keeps the `timeout` code.
 */
function providerError(e: unknown): ErrorInfo {
  const last = RetryError.isInstance(e) ? e.lastError : e;
  const attempts = RetryError.isInstance(e) ? e.errors.length : 0;
  const plain =
    last && typeof last === "object" && !(last instanceof Error) ? (last as { message?: unknown }) : null;
  const info = plain
    ? {
        code: "internal" as const,
        message: typeof plain.message === "string" ? plain.message : getErrorMessage(last),
      }
    : toErrorInfo(last);
  const message = info.message.split("\n")[0].slice(0, 500);
  const code = isModelTimeout(last) ? "timeout" : info.code === "internal" ? "io_error" : info.code;
  return { code, message: `Model call failed${attempts ? ` after ${attempts} attempts` : ""}: ${message}` };
}

// The AI SDK parses model JSON with secure-json-parse, which refuses prototype-polluting keys; so do we.
function refusePrototypeKeys(key: string, value: unknown): unknown {
  if (
    key === "__proto__" ||
    (key === "constructor" && typeof value === "object" && value && Object.hasOwn(value, "prototype"))
  ) {
    throw new SyntaxError(`"${key}" is not allowed in tool input`);
  }
  return value;
}

/**
 * A tool call's input as `streamText` parses it: empty means `{}`, JSON is parsed, and anything else
 * is kept as the raw string so dispatch reports it as invalid input to the model.
 */
export function parseToolInput(raw: string): unknown {
  if (raw.trim() === "") return {};
  try {
    return JSON.parse(raw, refusePrototypeKeys) ?? {};
  } catch {
    return raw;
  }
}

function absorb(turn: ModelTurn, part: LanguageModelV3StreamPart, onText: (delta: string) => void): void {
  if (part.type === "text-delta") {
    if (!part.delta) return;
    turn.text += part.delta;
    onText(part.delta);
  } else if (part.type === "tool-call") {
    turn.toolCalls.push({ id: part.toolCallId, key: part.toolName, input: parseToolInput(part.input) });
  } else if (part.type === "finish") {
    const input = part.usage.inputTokens;
    turn.usage = {
      inputTokens: input.total,
      outputTokens: part.usage.outputTokens.total,
      cacheReadTokens: input.cacheRead,
      cacheWriteTokens: input.cacheWrite,
    };
  } else if (part.type === "error") {
    turn.error = providerError(part.error);
  }
}

/** True once the caller has seen part of the answer, so a fresh attempt would repeat it. */
function delivered(turn: ModelTurn): boolean {
  return turn.text !== "" || turn.toolCalls.length > 0;
}

type CallOptions = Parameters<typeof callModel>[0];

/**
 * One attempt: start the stream and read it to the end. A transient failure (a timeout, a dropped
 * connection, a retryable error part) before any text or tool call arrived is thrown, so the call is
 * retried; after that, a retry would repeat what the user already saw, so the turn ends with the
 * error and keeps its partial text.
 */
async function attempt(opts: CallOptions): Promise<ModelTurn> {
  const turn: ModelTurn = { text: "", toolCalls: [], error: null, aborted: false };
  const { signal } = opts;
  const { stream } = await opts.model.doStream({
    prompt: [{ role: "system", content: opts.system }, ...opts.messages],
    tools: opts.tools.length ? opts.tools : undefined,
    toolChoice: opts.tools.length ? { type: "auto" } : undefined,
    maxOutputTokens: opts.maxOutputTokens,
    abortSignal: signal,
    includeRawChunks: false,
  });
  const reader = stream.getReader();
  const fail = (e: unknown) => {
    if (signal?.aborted) return;
    if (!delivered(turn) && isTransient(e)) {
      reader.cancel().catch(() => {});
      throw e;
    }
    const info = providerError(e);
    turn.error = isTransient(e)
      ? { ...info, message: `${info.message} (not retried: part of the answer had already arrived)` }
      : info;
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // Like streamText, nothing that arrives after an abort counts; cancelling stops the provider's request.
      if (signal?.aborted) {
        await reader.cancel().catch(() => {});
        break;
      }
      if (value.type === "error" && isTransient(value.error)) fail(value.error);
      else absorb(turn, value, opts.onText);
    }
  } catch (e) {
    fail(e);
  }
  return turn;
}

/**
 * One model call (one step, no automatic multi-step) on the provider's `doStream`: streams text deltas
 * to `onText` and collects the tool calls, which the loop executes itself. It keeps `streamText`'s
 * retries, abort and error handling but not its per-call zod validation of the whole history: the
 * loop builds the prompt from validated entries, and that validation grew with every step. Unlike
 * `streamText`, a stream that fails before anything arrived (a provider timeout) is retried too.
 */
export async function callModel(opts: {
  model: LanguageModelV3;
  system: string;
  messages: readonly LanguageModelV3Message[];
  tools: LanguageModelV3FunctionTool[];
  maxOutputTokens?: number;
  signal?: AbortSignal;
  maxRetries: number;
  onText: (delta: string) => void;
}): Promise<ModelTurn> {
  let turn: ModelTurn = { text: "", toolCalls: [], error: null, aborted: false };
  const { signal } = opts;
  let release: (() => void) | undefined;
  try {
    // Waiting for a slot counts as part of the call: an abort while waiting ends it as aborted.
    release = await modelCallSlots.acquire(signal);
    turn = await withRetries(() => attempt(opts), { maxRetries: opts.maxRetries, signal });
  } catch (e) {
    if (!signal?.aborted) turn.error = providerError(e);
  } finally {
    release?.();
  }
  if (signal?.aborted) turn.aborted = true;
  return turn;
}
