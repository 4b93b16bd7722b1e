import type { Command } from "commander";
import { waitingAgents } from "../../collab/waiting.js";
import { NbError, toErrorInfo } from "../../core/errors.js";
import { MODES, type Mode } from "../../core/modes.js";
import type { PendingView } from "../../harness/events.js";
import type { Harness } from "../../harness/loop.js";
import { type RewindResult, RewindScopeSchema, rewindPoints } from "../../harness/rewind.js";
import { oneLine } from "../../harness/store/index.js";
import type { Resolution, RunResult } from "../../harness/types.js";
import { formatTasks } from "../../tasks/list.js";
import { workflowNotices } from "../../workflows/notices.js";
import { exitNotice, JOBS_HELP, jobsText } from "../chat-jobs.js";
import { LineReader } from "../line-reader.js";
import { locateProject } from "../locate.js";
import { reportCliError, writeErr, writeOut } from "../output.js";
import { money, usageLine } from "../usage-format.js";
import { type AgentCliOptions, attachPrinter, openAgentSessions } from "./run.js";

const HELP = `Commands:
  /mode <normal|discuss|plan>  change the session mode
  /plan                        switch to plan mode
  /tasks                       show the task list
  /compact [focus]             summarise the older history now, keeping what focus names
  /usage                       tokens and cost of this session and of the project today
${JOBS_HELP.trimEnd()}
  /undo                        take back the changes of the last turn (files and plot/world rows)
  /rewind                      list the points before each of your messages
  /rewind <entry> [conversation|files|both]
                               go back there: the conversation (default), the changes made since, or both
  /sessions                    list recent sessions
  /new                         start a new session (same profile and project)
  /help                        this help
  /exit                        quit
At the prompt, Ctrl-C clears a half-typed line; on an empty line it exits, as Ctrl-D does.
While a turn runs, Ctrl-C aborts it; a second Ctrl-C exits.
`;

/** What an undo or a rewind did, for the terminal. */
function undoText(r: RewindResult): string {
  const lines: string[] = [];
  if (r.dropped) lines.push(`Back at entry ${r.leafId}: your next message continues from there.`);
  if (r.revertChange) lines.push(`Took back ${r.reverted.join(", ")} (change ${r.revertChange}).`);
  else if (!r.dropped) lines.push("Nothing to take back.");
  return `${lines.join("\n")}\n`;
}

/** The points a rewind can go back to: before each of the user's messages on the active branch. */
function rewindPointsText(h: Harness, sessionId: string): string {
  const lines = rewindPoints(h.store, sessionId).map(
    (p) => `  ${p.entryId.padStart(5)}  before “${oneLine(p.message, 60)}”`,
  );
  if (!lines.length) return "Nothing to rewind to yet (use /new to start over).\n";
  return `Rewind points (entry, then the message it goes back before):\n${lines.join("\n")}\nUse /rewind <entry> [conversation|files|both].\n`;
}

/** Ask the user to settle a pending approval or question. Null when input ended. */
async function askResolution(reader: LineReader, pending: PendingView): Promise<Resolution | null> {
  if (pending.kind === "user_input") {
    const input = pending.input as { choices?: string[]; allowFreeText?: boolean };
    for (;;) {
      const answer = await reader.next("answer › ");
      if (answer === null) return null;
      const text = answer.trim();
      if (!text) return { approved: false, reason: "The user left the question unanswered." };
      const byNumber = input.choices?.[Number(text) - 1];
      if (input.choices && input.allowFreeText === false && !byNumber && !input.choices.includes(text)) {
        writeOut(`Pick one of: ${input.choices.map((c, i) => `${i + 1}. ${c}`).join("  ")}\n`);
        continue;
      }
      return { approved: true, answer: byNumber ?? text };
    }
  }
  for (;;) {
    const yn = await reader.next(`Approve ${pending.tool}? [y/n] `);
    if (yn === null) return null;
    const v = yn.trim().toLowerCase();
    if (v === "y" || v === "yes") return { approved: true };
    if (v === "n" || v === "no") {
      const reason = await reader.next("Reason (optional): ");
      return reason?.trim() ? { approved: false, reason: reason.trim() } : { approved: false };
    }
  }
}

/** `nbook chat`: an interactive session in the terminal. */
export function registerChat(program: Command): void {
  program
    .command("chat")
    .description("Chat with an agent in the terminal (streams text, asks for approvals)")
    .option("--profile <key>", "agent profile for a new session", "leader.default")
    .option(
      "--mode <mode>",
      "normal, discuss or plan, for a new session (default: normal; change it later with /mode)",
    )
    .option(
      "--model <ref>",
      "model <providerId>/<modelId>: a new session pins it; with --session, it is used for this chat only",
    )
    .option("--session <id>", "resume this session (shows a pending approval first)")
    .option("--project <name>", "project (default: the project folder you are in)")
    .option("--script <file>", "use a scripted model file (offline; no config needed)")
    .option(
      "--initial <json>",
      "the new session's initial object (JSON or @file), for profiles that need one",
    )
    .option("--workspace <dir>", "workspace root")
    .action(async (o: AgentCliOptions) => {
      let harness: Harness | null = null;
      let reader: LineReader | null = null;
      try {
        const opened = openAgentSessions(o);
        harness = opened.harness;
        const h = harness;
        const newSession = opened.newSession;
        let sessionId = o.session ?? newSession();
        const header = () => {
          const s = h.store.session(sessionId);
          writeOut(
            `Session ${s.id} · ${s.profileKey} · ${s.mode} mode · ${s.project ?? "workspace level"} · model ${s.model ?? "?"}\nType /help for commands.\n`,
          );
        };
        header();
        // The status line after each run: what this session and its project spent (UTC day).
        const status = () => {
          const usage = h.store.sessionUsage(sessionId);
          if (!usage.calls) return;
          const project = h.store.session(sessionId).project;
          const day = h.store.projectDayUsage(project, new Date().toISOString().slice(0, 10));
          writeOut(`── session: ${usageLine(usage)} │ ${project ?? "workspace"} today: ${money(day)}\n`);
        };
        for (const line of workflowNotices(locateProject(o).workspace)) writeOut(`${line}\n`);
        attachPrinter(h, (s) => writeOut(s));
        let interrupts = 0;
        const exit = () => {
          writeOut("\n");
          r.close();
          h.close();
          process.exit(130);
        };
        reader = new LineReader({
          input: process.stdin,
          output: process.stdout,
          terminal: process.stdin.isTTY === true,
          // A running turn takes Ctrl-C (abort, then exit); at a prompt the reader clears the line or exits.
          onInterrupt: () => {
            if (!h.isRunning(sessionId)) return false;
            if (interrupts++ > 0) exit();
            writeErr("\n(aborting; Ctrl-C again to exit)\n");
            h.abort(sessionId);
            return true;
          },
          onExit: exit,
        });
        const r = reader;
        // Ctrl-C as a signal (stdin piped, or kill -INT): the same as the key.
        const onInterrupt = () => r.interrupt();
        process.on("SIGINT", onInterrupt);

        /**
         * Run, then settle this session's approvals and questions, and those of the agents it
         * created (whose calls returned `waiting`), until nothing waits or input ends. A settled
         * agent's result flows back to this session, whose turn then runs here.
         */
        const drive = async (start: () => Promise<RunResult | null>): Promise<boolean> => {
          interrupts = 0;
          let result = await start();
          for (;;) {
            if (result?.status === "waiting" && result.pending) {
              const resolution = await askResolution(r, result.pending);
              if (!resolution) return false;
              interrupts = 0;
              result = await h.settle(sessionId, result.pending.approvalId, resolution, { model: o.model });
              continue;
            }
            const [agent] = waitingAgents(h, sessionId);
            if (!agent) break;
            const { session: child, pending } = agent;
            writeOut(
              `\nAgent ${child.id} (${child.profileKey}) waits:\n── [${pending.approvalId}] ${pending.tool} (${pending.kind}) ──\n${pending.preview}\n`,
            );
            const resolution = await askResolution(r, pending);
            if (!resolution) return false;
            interrupts = 0;
            await h.settle(child.id, pending.approvalId, resolution);
            result = (await h.flowBackRun(sessionId)) ?? result;
          }
          if (result && result.status !== "completed") writeOut(`(run ended: ${result.status})\n`);
          if (result?.status === "budget_limit" && result.error) writeOut(`${result.error.message}\n`);
          status();
          return true;
        };

        const waiting = h.pending(sessionId);
        if (waiting) {
          writeOut(
            `\nThis session is waiting:\n── [${waiting.approvalId}] ${waiting.tool} (${waiting.kind}) ──\n${waiting.preview}\n`,
          );
          const resolution = await askResolution(r, waiting);
          if (resolution) {
            await drive(() => h.settle(sessionId, waiting.approvalId, resolution, { model: o.model }));
          }
        } else if (waitingAgents(h, sessionId).length) {
          await drive(async () => null);
        } else if (h.store.jobs.undelivered(sessionId).length) {
          // Results of jobs that ended while no process ran this session: its turn for them, now.
          await drive(async () => h.runQueued(sessionId));
        }

        for (;;) {
          const line = await r.next("\nyou › ");
          if (line === null) {
            writeOut("\n");
            break;
          }
          const text = line.trim();
          if (!text) continue;
          try {
            if (text.startsWith("/")) {
              const [cmd, arg] = text.slice(1).split(/\s+/, 2);
              if (cmd === "exit" || cmd === "quit") break;
              if (cmd === "help") writeOut(HELP);
              else if (cmd === "tasks") writeOut(`${formatTasks(h.tasks(sessionId))}\n`);
              else if (cmd === "jobs") writeOut(jobsText(h, sessionId));
              else if (cmd === "usage") {
                if (h.store.sessionUsage(sessionId).calls) status();
                else writeOut("No model call yet in this session.\n");
              } else if (cmd === "compact") {
                const focus = text.slice(1 + cmd.length).trim();
                const entry = await h.compact(sessionId, focus || undefined);
                if (entry?.kind === "compaction")
                  writeOut(`Summary of the earlier conversation:\n${entry.data.summary}\n`);
                else if (entry === null) writeOut("Nothing was compacted.\n");
              } else if (cmd === "mode" || cmd === "plan") {
                const target = (cmd === "plan" ? "plan" : arg) as Mode;
                if (!MODES.includes(target))
                  throw new NbError("invalid_input", `Usage: /mode ${MODES.join("|")}`);
                if (!h.setMode(sessionId, target)) writeOut(`Already in ${target} mode.\n`);
              } else if (cmd === "undo") {
                writeOut(undoText(await h.undo(sessionId)));
              } else if (cmd === "rewind") {
                const scopeArg = text.slice(1).split(/\s+/)[2];
                if (!arg) writeOut(rewindPointsText(h, sessionId));
                else {
                  const scope = RewindScopeSchema.safeParse(scopeArg ?? "conversation");
                  if (!scope.success)
                    throw new NbError("invalid_input", "Usage: /rewind <entry> [conversation|files|both]");
                  writeOut(undoText(await h.rewind(sessionId, arg, scope.data)));
                }
              } else if (cmd === "sessions") {
                for (const s of h.store.listSessions({ limit: 10 })) {
                  writeOut(
                    `${s.id === sessionId ? "*" : " "} ${s.id.padStart(4)} ${s.status.padEnd(8)} ${s.mode.padEnd(7)} ${s.profileKey.padEnd(16)} ${s.title || "(untitled)"}\n`,
                  );
                }
              } else if (cmd === "new") {
                sessionId = newSession();
                header();
              } else writeOut(`Unknown command /${cmd}.\n${HELP}`);
              continue;
            }
            writeOut("\n");
            if (!(await drive(() => h.invoke(sessionId, { mode: "prompt", message: text, model: o.model }))))
              break;
          } catch (e) {
            const info = toErrorInfo(e);
            writeOut(`error [${info.code}]: ${info.message}\n`);
          }
        }
        process.off("SIGINT", onInterrupt);
        const leaving = exitNotice(h);
        if (leaving) writeOut(leaving);
      } catch (e) {
        reportCliError(e);
      } finally {
        reader?.close();
        harness?.close();
      }
    });
}
