import { type LanguageModel, type ModelMessage, streamText, type ToolSet } from "ai";
import { type ErrorInfo, toErrorInfo } from "../core/errors.js";
import type { ToolCall } from "./store/schema.js";

/** What one model call produced. `error`/`aborted` mean the stream was cut; `text` keeps what arrived. */
export interface ModelTurn {
  text: string;
  toolCalls: ToolCall[];
  usage?: { inputTokens?: number; outputTokens?: number };
  error: ErrorInfo | null;
  aborted: boolean;
}

/** Provider errors carry URLs, bodies and keys in odd places: keep only a short message for the model and the log. */
function providerError(e: unknown): ErrorInfo {
  const info = toErrorInfo(e);
  const message = info.message.split("\n")[0].slice(0, 500);
  return {
    code: info.code === "internal" ? "io_error" : info.code,
    message: `Model call failed: ${message}`,
  };
}

/**
 * One model call (one step, no automatic multi-step): streams text deltas to `onText` and collects
 * the tool calls, which the loop executes itself.
 */
export async function callModel(opts: {
  model: LanguageModel;
  system: string;
  messages: ModelMessage[];
  tools: ToolSet;
  signal?: AbortSignal;
  maxRetries: number;
  onText: (delta: string) => void;
}): Promise<ModelTurn> {
  const turn: ModelTurn = { text: "", toolCalls: [], error: null, aborted: false };
  try {
    const result = streamText({
      model: opts.model,
      system: opts.system,
      messages: opts.messages,
      tools: opts.tools,
      abortSignal: opts.signal,
      maxRetries: opts.maxRetries,
      // The loop keeps its own history; retaining each request body would hold a copy of the whole prompt per step.
      experimental_include: { requestBody: false },
      onError: () => {},
    });
    for await (const part of result.fullStream) {
      if (part.type === "text-delta") {
        turn.text += part.text;
        opts.onText(part.text);
      } else if (part.type === "tool-call") {
        turn.toolCalls.push({ id: part.toolCallId, key: part.toolName, input: part.input ?? {} });
      } else if (part.type === "finish-step") {
        turn.usage = { inputTokens: part.usage.inputTokens, outputTokens: part.usage.outputTokens };
      } else if (part.type === "error") {
        turn.error = providerError(part.error);
      } else if (part.type === "abort") {
        turn.aborted = true;
      }
    }
  } catch (e) {
    if (opts.signal?.aborted) turn.aborted = true;
    else turn.error = providerError(e);
  }
  if (opts.signal?.aborted) turn.aborted = true;
  return turn;
}
