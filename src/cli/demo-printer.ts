import type { HarnessEvent } from "../harness/events.js";
import type { Harness } from "../harness/loop.js";
import { formatTasks } from "../tasks/list.js";

/**
 * Print the events of a session and the agents it delegates to as one transcript: each speaker is
 * named (`leader ›`, `writer #2 ›`) and a delegated agent's lines are indented under the call that
 * started it, so the chain of delegation reads top to bottom.
 */
export function attachDelegationPrinter(harness: Harness, write: (s: string) => void): () => void {
  const starts = new Map<string, string>();
  const depths = new Map<string, number>();
  let speaker: string | null = null;
  let midLine = false;

  const depthOf = (sessionId: string): number => {
    let d = depths.get(sessionId);
    if (d === undefined) {
      const parent = harness.store.linkOf(sessionId)?.parentSessionId;
      d = parent ? depthOf(parent) + 1 : 0;
      depths.set(sessionId, d);
    }
    return d;
  };
  const indent = (sessionId: string) => "    ".repeat(depthOf(sessionId));
  const label = (sessionId: string): string => {
    const s = harness.store.session(sessionId);
    return depthOf(sessionId) === 0 && s.profileKey === "leader.default"
      ? "leader"
      : `${s.profileKey} #${s.id}`;
  };
  const endLine = () => {
    if (midLine) write("\n");
    midLine = false;
  };
  /** A whole line of `sessionId`'s output, under its indentation. */
  const line = (sessionId: string, s: string) => {
    endLine();
    const pad = indent(sessionId);
    write(`${s.replace(/^/gm, pad)}\n`);
  };

  return harness.bus.on((e: HarnessEvent) => {
    switch (e.type) {
      case "text_delta": {
        const pad = indent(e.sessionId);
        if (speaker !== e.sessionId || !midLine) {
          endLine();
          write(`${pad}${label(e.sessionId)} › `);
          speaker = e.sessionId;
        }
        write(e.text.replace(/\n(?=.)/g, `\n${pad}  `));
        midLine = !e.text.endsWith("\n");
        break;
      }
      case "tool_call_start":
        starts.set(e.callId, e.summary);
        // A delegated agent prints while the call runs: say first who is being called.
        if (e.tool === "invoke_agent") line(e.sessionId, `  ↳ ${e.summary}`);
        break;
      case "tool_call_end":
        line(
          e.sessionId,
          `  ${e.ok ? "✓" : "✗"} ${starts.get(e.callId) ?? e.tool}${e.summary ? `  → ${e.summary}` : ""}`,
        );
        speaker = null;
        break;
      case "approval_required":
        line(
          e.sessionId,
          `\n── ${label(e.sessionId)} needs approval [${e.pending.approvalId}]: ${e.pending.tool} ──\n${e.pending.preview}`,
        );
        break;
      case "task_list_changed":
        line(e.sessionId, formatTasks(e.tasks).replace(/^/gm, "  │ "));
        break;
      case "mode_changed":
        line(
          e.sessionId,
          `  ⇄ mode: ${e.from} → ${e.to} (${e.by === "user" ? "by the user" : "approved request"})`,
        );
        break;
      case "error":
        line(e.sessionId, `error [${e.error.code}]: ${e.error.message}`);
        break;
      case "run_end":
        endLine();
        speaker = null;
        break;
      default:
        break;
    }
  });
}
