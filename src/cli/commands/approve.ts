import type { Command } from "commander";
import { NbError } from "../../core/errors.js";
import type { Harness } from "../../harness/loop.js";
import { reportCliError, writeOut } from "../output.js";
import { type AgentCliOptions, openAgentCli, runAndReport } from "./run.js";

interface ApproveOptions extends AgentCliOptions {
  reject?: boolean;
  reason?: string;
  answer?: string;
}

/**
 * `nbook approve <sessionId> <approvalId>`: settle what a session waits on, then continue its run.
 * The model is resolved first, so an approval is never settled for a run that cannot go on. For an
 * agent another agent invoked, its result then flows back to that agent.
 */
export function registerApprove(program: Command): void {
  program
    .command("approve")
    .description("Approve (or --reject) a pending approval, or --answer a question, and continue the run")
    .argument("<sessionId>", "the waiting session")
    .argument("<approvalId>", "the approval or question id (shown by nbook run / nbook chat)")
    .option("--reject", "reject instead of approving")
    .option("--reason <text>", "why (passed to the agent)")
    .option("--answer <text>", "the answer to a request_user_input question (not with --reject)")
    .option("--model <ref>", "model <providerId>/<modelId> for the continued run")
    .option("--script <file>", "scripted model file (continues where the session's script left off)")
    .option("--workspace <dir>", "workspace root")
    .option("--json", "print one JSON object at the end: {sessionId, status, finalMessage, data}")
    .action(async (sessionId: string, approvalId: string, o: ApproveOptions) => {
      let harness: Harness | null = null;
      try {
        if (o.reject && o.answer !== undefined) {
          throw new NbError(
            "invalid_input",
            "--reject and --answer cannot be used together: --answer answers the question, --reject dismisses it",
          );
        }
        harness = openAgentCli({ ...o, session: sessionId }).harness;
        const h = harness;
        const pending = h.pending(sessionId);
        if (pending?.kind === "user_input" && !o.reject && o.answer === undefined) {
          throw new NbError(
            "invalid_input",
            "This is a question: pass --answer <text> (or --reject to dismiss it)",
          );
        }
        const settled =
          pending?.kind === "user_input" && !o.reject
            ? `Question ${approvalId} is answered.`
            : `Approval ${approvalId} is settled (${o.reject ? "rejected" : "approved"}).`;
        await runAndReport(
          h,
          sessionId,
          o.json,
          () =>
            h.settle(
              sessionId,
              approvalId,
              {
                approved: !o.reject,
                ...(o.reason ? { reason: o.reason } : {}),
                ...(o.answer !== undefined ? { answer: o.answer } : {}),
              },
              { model: o.model },
            ),
          settled,
        );
        // A child's result flows back to the agent that invoked it; if that agent's turn started
        // here, it runs to its end before this process leaves.
        const parent = h.store.session(sessionId).parentSessionId;
        const back = parent ? h.flowBackRun(parent) : undefined;
        if (parent && back) {
          const turn = await back;
          if (!o.json) {
            writeOut(
              `\nThe result went back to agent session ${parent}, whose turn ended ${turn.status}${turn.finalMessage ? `: ${turn.finalMessage}` : "."}\n`,
            );
          }
        }
      } catch (e) {
        reportCliError(e, o.json);
      } finally {
        harness?.close();
      }
    });
}
