import {
  getErrorMessage,
  type LanguageModelV3,
  type LanguageModelV3FunctionTool,
  type LanguageModelV3Message,
  type LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import { type ErrorInfo, toErrorInfo } from "../core/errors.js";
import { withRetries } from "./retry.js";
import type { ToolCall } from "./store/schema.js";

/** What one model call produced. `error`/`aborted` mean the stream was cut; `text` keeps what arrived. */
export interface ModelTurn {
  text: string;
  toolCalls: ToolCall[];
  usage?: { inputTokens?: number; outputTokens?: number };
  error: ErrorInfo | null;
  aborted: boolean;
}

/**
 * Provider errors carry URLs, bodies and keys in odd places: keep only a short message for the model
 * and the log. An error part of a stream may be a plain object (an OpenAI-style `{message, type}`).
 */
function providerError(e: unknown): ErrorInfo {
  const plain = e && typeof e === "object" && !(e instanceof Error) ? (e as { message?: unknown }) : null;
  const info = plain
    ? {
        code: "internal" as const,
        message: typeof plain.message === "string" ? plain.message : getErrorMessage(e),
      }
    : toErrorInfo(e);
  const message = info.message.split("\n")[0].slice(0, 500);
  return {
    code: info.code === "internal" ? "io_error" : info.code,
    message: `Model call failed: ${message}`,
  };
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
    turn.usage = { inputTokens: part.usage.inputTokens.total, outputTokens: part.usage.outputTokens.total };
  } else if (part.type === "error") {
    turn.error = providerError(part.error);
  }
}

/**
 * One model call (one step, no automatic multi-step) on the provider's `doStream`: streams text deltas
 * to `onText` and collects the tool calls, which the loop executes itself. It keeps `streamText`'s
 * retries, abort and error handling but not its per-call zod validation of the whole history: the
 * loop builds the prompt from validated entries, and that validation grew with every step.
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
  const turn: ModelTurn = { text: "", toolCalls: [], error: null, aborted: false };
  const { signal } = opts;
  try {
    const { stream } = await withRetries(
      () =>
        opts.model.doStream({
          prompt: [{ role: "system", content: opts.system }, ...opts.messages],
          tools: opts.tools.length ? opts.tools : undefined,
          toolChoice: opts.tools.length ? { type: "auto" } : undefined,
          maxOutputTokens: opts.maxOutputTokens,
          abortSignal: signal,
          includeRawChunks: false,
        }),
      { maxRetries: opts.maxRetries, signal },
    );
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // Like streamText, nothing that arrives after an abort counts; cancelling stops the provider's request.
      if (signal?.aborted) {
        await reader.cancel().catch(() => {});
        break;
      }
      absorb(turn, value, opts.onText);
    }
  } catch (e) {
    if (!signal?.aborted) turn.error = providerError(e);
  }
  if (signal?.aborted) turn.aborted = true;
  return turn;
}
