import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { toErrorInfo } from "../core/errors.js";
import {
  approvalRequired,
  approve,
  type DispatchContext,
  hiddenPaths,
  planCall,
  runPlanned,
  type ToolCall,
} from "../tools/dispatch.js";
import type { DispatchResult } from "../tools/types.js";

/**
 * Characters of preview an approval prompt shows. A prompt is a dialog in the client: past this a
 * person cannot review the change there, so a longer one is not offered for approval at all.
 */
export const MAX_PROMPT_PREVIEW = 20_000;

/** How long a person may take to answer an approval prompt (the SDK's 60 s default is too short). */
const APPROVAL_TIMEOUT_MS = 30 * 60_000;

/** Ask the user through elicitation to approve one gated call, showing its whole preview; true only on an explicit yes. */
async function askApproval(
  server: Server,
  dctx: DispatchContext,
  tool: string,
  preview: string,
  signal?: AbortSignal,
): Promise<boolean> {
  const answer = await server.elicitInput(
    {
      mode: "form",
      message: `NeuroBook (${dctx.mode} mode) asks before this ${tool} call runs. Approve this one call?\n\n${preview}`,
      requestedSchema: {
        type: "object",
        properties: { approve: { type: "boolean", title: "Approve", description: "Run this one call" } },
        required: ["approve"],
      },
    },
    { signal, timeout: APPROVAL_TIMEOUT_MS },
  );
  return answer.action === "accept" && answer.content?.approve === true;
}

/**
 * Run one MCP tool call through dispatch. A call the gate stops is put to the user through
 * elicitation, when the client supports it, with its whole preview; on a yes the same planned call
 * runs against that preview's basis, so it does exactly what was shown or fails with `conflict`.
 * A preview longer than a prompt shows is not offered, and the result says so.
 */
export async function callWithApproval(
  server: Server,
  call: ToolCall,
  dctx: DispatchContext,
  log: (line: string) => void,
): Promise<DispatchResult> {
  const planned = await planCall(call, dctx);
  if (planned.kind === "refuse") return { ok: false, error: planned.error };
  if (planned.kind === "run") return runPlanned(planned, dctx);
  // Without elicitation the MCP text result says what the user must approve.
  const error = approvalRequired(planned, dctx);
  const stopped: DispatchResult = { ok: false, error };
  if (!server.getClientCapabilities()?.elicitation?.form) return stopped;

  const { preview } = planned;
  if (preview.text.length > MAX_PROMPT_PREVIEW) {
    return {
      ok: false,
      error: {
        ...error,
        message: `This ${call.key} call was not offered for approval, and nothing was changed: its preview is ${preview.text.length.toLocaleString("en-US")} characters, and an approval prompt shows at most ${MAX_PROMPT_PREVIEW.toLocaleString("en-US")}, so the user could not see the whole change. Make the change in smaller calls.`,
      },
    };
  }
  let approved: boolean;
  try {
    approved = await askApproval(server, dctx, call.key, preview.text, dctx.signal);
  } catch (e) {
    log(`elicitation failed: ${toErrorInfo(e, hiddenPaths(dctx)).message}`);
    return stopped;
  }
  if (!approved) {
    return {
      ok: false,
      error: {
        code: "approval_required",
        message: `The user declined this ${call.key} call; nothing was changed.`,
      },
    };
  }
  return runPlanned(approve(planned, preview.basis), dctx);
}
