import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import { getErrorMessage } from "@ai-sdk/provider";
import { z } from "zod";
import { toolsUnsupported } from "./provider-errors.js";

/** What `nbook models test` found out about a model with one tiny call. */
export const ProbeResultSchema = z.object({
  ref: z.string(),
  ok: z.boolean(),
  /** From sending the request to the first streamed part (connecting included). */
  firstChunkMs: z.number().nullable(),
  totalMs: z.number(),
  /** Parts of the answer that came as separate chunks (text deltas and tool-input deltas). */
  chunks: z.number(),
  streamed: z.boolean(),
  /** `yes`: it called the probe tool; `no`: it answered in text; `unsupported`: the server refused tools. */
  toolCalls: z.enum(["yes", "no", "unsupported", "unknown"]),
  inputTokens: z.number().nullable(),
  outputTokens: z.number().nullable(),
  /** The failure in plain words (a missing key variable is named). */
  error: z.string().nullable(),
});
export type ProbeResult = z.infer<typeof ProbeResultSchema>;

export const PROBE_TOOL = "nb_echo";

const CALL: LanguageModelV3CallOptions = {
  prompt: [
    { role: "system", content: "You check a connection. Do exactly what the user asks." },
    {
      role: "user",
      content: [
        {
          type: "text",
          text: `Call the tool ${PROBE_TOOL} with {"word": "ok"}. Do not write anything else.`,
        },
      ],
    },
  ],
  tools: [
    {
      type: "function",
      name: PROBE_TOOL,
      description: "Echo a word back.",
      inputSchema: {
        type: "object",
        properties: { word: { type: "string" } },
        required: ["word"],
        additionalProperties: false,
      },
    },
  ],
  maxOutputTokens: 64,
};

interface Read {
  firstChunkMs: number | null;
  chunks: number;
  toolCalled: boolean;
  inputTokens: number | null;
  outputTokens: number | null;
}

async function readStream(
  model: LanguageModelV3,
  options: LanguageModelV3CallOptions,
  t0: number,
): Promise<Read> {
  const { stream } = await model.doStream(options);
  const out: Read = {
    firstChunkMs: null,
    chunks: 0,
    toolCalled: false,
    inputTokens: null,
    outputTokens: null,
  };
  const reader = stream.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return out;
    const part: LanguageModelV3StreamPart = value;
    if (part.type === "stream-start" || part.type === "response-metadata") continue;
    out.firstChunkMs ??= Date.now() - t0;
    if (part.type === "error") throw part.error;
    if (part.type === "text-delta" || part.type === "tool-input-delta") out.chunks++;
    if (part.type === "tool-call" && part.toolName === PROBE_TOOL) out.toolCalled = true;
    if (part.type === "finish") {
      out.inputTokens = part.usage.inputTokens.total ?? null;
      out.outputTokens = part.usage.outputTokens.total ?? null;
    }
  }
}

/**
 * One tiny streamed call offering one tool: how long the first chunk took, whether the answer
 * streamed, and whether the model called the tool. A server that refuses tools is asked again
 * without them, so the report still says whether the model answers at all.
 */
export async function probeModel(
  ref: string,
  model: LanguageModelV3,
  signal?: AbortSignal,
): Promise<ProbeResult> {
  const t0 = Date.now();
  const base = { ref, streamed: false, inputTokens: null, outputTokens: null };
  try {
    const r = await readStream(model, { ...CALL, abortSignal: signal }, t0);
    return {
      ...base,
      ...r,
      ok: true,
      totalMs: Date.now() - t0,
      streamed: r.chunks > 1,
      toolCalls: r.toolCalled ? "yes" : "no",
      error: null,
    };
  } catch (e) {
    const message = getErrorMessage(e);
    if (!toolsUnsupported(message)) {
      return {
        ...base,
        ok: false,
        firstChunkMs: null,
        chunks: 0,
        totalMs: Date.now() - t0,
        toolCalls: "unknown",
        error: message,
      };
    }
    const t1 = Date.now();
    try {
      const { tools: _none, ...plain } = CALL;
      const r = await readStream(model, { ...plain, abortSignal: signal }, t1);
      return {
        ...base,
        ...r,
        ok: false,
        totalMs: Date.now() - t1,
        streamed: r.chunks > 1,
        toolCalls: "unsupported",
        error: message,
      };
    } catch (again) {
      return {
        ...base,
        ok: false,
        firstChunkMs: null,
        chunks: 0,
        totalMs: Date.now() - t1,
        toolCalls: "unsupported",
        error: getErrorMessage(again),
      };
    }
  }
}
