import { cutBytes } from "../core/truncate.js";
import type { RunResult } from "../harness/types.js";
import type { AgentInvocationResult, AgentPending } from "../tools/collaboration/service.js";

/** The largest final message an invocation result carries (UTF-8 bytes). */
export const FINAL_MESSAGE_BYTES = 64 * 1024;

/** A preview clipped for the calling model. */
const PREVIEW_CHARS = 2000;

/** Clip a final message to 64 KiB, saying how much was cut. */
export function clipFinalMessage(text: string): { finalMessage: string; finalMessageOmittedBytes?: number } {
  const total = Buffer.byteLength(text, "utf8");
  if (total <= FINAL_MESSAGE_BYTES) return { finalMessage: text };
  const kept = cutBytes(text, FINAL_MESSAGE_BYTES);
  return { finalMessage: kept, finalMessageOmittedBytes: total - Buffer.byteLength(kept, "utf8") };
}

/** A pending approval or question as the calling agent sees it. */
export function pendingOf(p: NonNullable<RunResult["pending"]>): AgentPending {
  const preview = p.preview.length > PREVIEW_CHARS ? `${p.preview.slice(0, PREVIEW_CHARS)}…` : p.preview;
  return { approvalId: p.approvalId, kind: p.kind, tool: p.tool, preview };
}

/** The compact result of a foreground invocation: no run ids, no raw usage records. */
export function invocationResult(r: RunResult, elapsedMs: number): AgentInvocationResult {
  const out: AgentInvocationResult = {
    status: r.status,
    sessionId: r.sessionId,
    ...clipFinalMessage(r.status === "queued" ? "" : r.finalMessage),
    data: r.data ?? null,
    stats: {
      steps: r.steps,
      elapsedMs,
      ...(r.usage ? { inputTokens: r.usage.inputTokens, outputTokens: r.usage.outputTokens } : {}),
    },
  };
  if (r.error) out.error = { code: r.error.code, message: r.error.message };
  if (r.status === "waiting" && r.pending) {
    out.approvalId = r.pending.approvalId;
    out.pending = pendingOf(r.pending);
  }
  return out;
}
