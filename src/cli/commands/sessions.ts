import type { Command } from "commander";
import { renderTree, type SessionNode, sessionTree } from "../../collab/tree.js";
import { writeFileAtomicSync } from "../../core/atomic-write.js";
import { NbError } from "../../core/errors.js";
import { type RewindResult, type RewindScope, rewindSession } from "../../harness/rewind.js";
import {
  type BudgetChange,
  type BudgetStatus,
  changeSessionBudget,
  sessionBudgetStatus,
} from "../../harness/session-budget.js";
import {
  exportJsonl,
  exportMarkdown,
  MAX_PAGE,
  oneLine,
  renderEntries,
  type Session,
  SessionStore,
  transcriptChunks,
  transcriptHeader,
} from "../../harness/store/index.js";
import { jobLine } from "../../jobs/format.js";
import { Workspace } from "../../workspace/workspace.js";
import { printJson, reportCliError, writeOut } from "../output.js";
import { registerSessionManagement } from "../sessions-manage.js";
import { callLine, manifestText, usageLine } from "../usage-format.js";

/**
 * Run `fn` with the workspace's session store, closing it afterwards. Sessions a process that is
 * gone left running are closed first (as `nbook jobs` does for jobs), so they show as they are.
 */
function withStore<T>(workspace: string | undefined, fn: (store: SessionStore) => T): T {
  const store = SessionStore.forWorkspace(Workspace.discover({ workspace }));
  try {
    store.recoverInterrupted();
    return fn(store);
  } finally {
    store.close();
  }
}

function listLine(s: Session): string {
  const title = s.title ? oneLine(s.title, 60) : "(untitled)";
  return [
    s.id.padStart(4),
    s.status.padEnd(8),
    s.mode.padEnd(7),
    s.profileKey.padEnd(16),
    (s.project ?? "-").padEnd(14),
    `${s.entryCount}`.padStart(5),
    ` ${s.updatedAt.slice(0, 16).replace("T", " ")}`,
    ` ${title}`,
  ].join(" ");
}

/** One session in the tree: id, profile, status, title (and whether its creator detached it). */
function treeLine(n: SessionNode): string {
  const s = n.session;
  const title = s.title ? oneLine(s.title, 60) : "(untitled)";
  return `#${s.id} ${s.profileKey} [${s.status}, ${s.mode}]${n.detached ? " (detached)" : ""} ${title}`;
}

/** The tree as JSON: each session with its `children`. */
function treeJson(nodes: readonly SessionNode[]): unknown[] {
  return nodes.map((n) => ({ ...n.session, detached: n.detached, children: treeJson(n.children) }));
}

/** What a rewind did, in a line or two. */
function rewindText(r: RewindResult, scope: RewindScope): string {
  const lines: string[] = [];
  if (scope !== "files")
    lines.push(
      `Session ${r.sessionId} now continues from entry ${r.leafId ?? "(start)"}${r.dropped ? ` (${r.dropped} later entr${r.dropped === 1 ? "y stays" : "ies stay"} on their branch)` : ""}.`,
    );
  if (scope !== "conversation")
    lines.push(
      r.revertChange
        ? `Reverted ${r.reverted.join(", ")} as change ${r.revertChange}.`
        : r.reverted.length
          ? `The changes ${r.reverted.join(", ")} were already undone.`
          : "No recorded changes to take back after that entry.",
    );
  return `${lines.join("\n")}\n`;
}

interface ShowOptions {
  limit?: number;
  before?: string;
  workspace?: string;
  json?: boolean;
}

/** `nbook sessions show`: the whole branch streamed from the root, or one page of it. */
function showSession(store: SessionStore, id: string, o: ShowOptions): void {
  const session = store.session(id);
  const paged = o.limit !== undefined || o.before !== undefined;
  const page = paged ? store.page(id, { before: o.before, limit: o.limit }) : null;
  const pending = store.pendingApprovals(id);
  const tasks = store.tasks(id);
  const children = store.childLinks(id, true).map((l) => ({
    ...store.session(l.childSessionId),
    detached: l.detachedAt !== null,
    pendingApprovals: store.pendingApprovals(l.childSessionId),
  }));
  const jobs = store.jobs.list({ ownerSessionId: id });
  if (o.json) {
    printJson({
      session,
      ...(page ? { page } : { path: store.activePath(id) }),
      tasks,
      pendingApprovals: pending,
      queued: store.queued(id),
      children,
      jobs,
      usage: store.sessionUsage(id),
      projectToday: store.projectDayUsage(session.project, today()),
    });
    return;
  }
  writeOut(transcriptHeader(session));
  if (page) {
    if (page.older !== null) {
      writeOut(`(earlier entries: nbook sessions show ${id} --before ${page.older})\n`);
    }
    writeOut(renderEntries(page.entries));
  } else {
    for (const chunk of transcriptChunks((q) => store.page(id, q))) writeOut(chunk);
  }
  let out = "";
  if (session.parentSessionId) {
    out += `\nCreated by agent session ${session.parentSessionId}${store.linkOf(id)?.detachedAt ? " (since detached)" : ""}.\n`;
  }
  if (children.length) {
    out += "\nAgents it created:\n";
    for (const c of children) {
      const title = c.title ? oneLine(c.title, 60) : "(untitled)";
      out += `  #${c.id} ${c.profileKey} [${c.status}]${c.detached ? " (detached)" : ""} ${title}\n`;
      for (const a of c.pendingApprovals) {
        out += `    waits on ${a.id}: ${a.toolKey} — ${oneLine(a.preview.text, 80) || "(no preview)"}  (nbook approve ${c.id} ${a.id} [--reject])\n`;
      }
    }
  }
  if (jobs.length) {
    out += "\nBackground jobs:\n";
    for (const j of jobs) out += `  ${jobLine(j)}\n`;
  }
  if (pending.length) {
    out += `\nPending approval${pending.length > 1 ? "s" : ""}:\n`;
    for (const a of pending) {
      out += `  ${a.id}: ${a.toolKey} — ${oneLine(a.preview.text) || "(no preview)"}  (nbook approve ${session.id} ${a.id} [--reject])\n`;
    }
  }
  const usage = store.sessionUsage(id);
  if (usage.calls) {
    out += `\nUsage: ${usageLine(usage)}\n`;
    const day = store.projectDayUsage(session.project, today());
    out += `${session.project ? `Project ${session.project}` : "Outside any project"} today (UTC): ${usageLine(day)}\n`;
  }
  const open = new Set(store.pendingToolCalls(id).map((p) => p.call.id));
  for (const e of open.size ? store.sinceLastAssistant(id) : []) {
    if (e.kind !== "user_input_request" || !open.has(e.data.callId)) continue;
    out += `\nPending question ${e.id}: ${oneLine(e.data.question)}  (nbook approve ${session.id} ${e.id} --answer "…")\n`;
  }
  writeOut(out);
}

/** The UTC day now (YYYY-MM-DD), as model calls are summed by. */
const today = (): string => new Date().toISOString().slice(0, 10);

/** A budget limit in words: each of its caps, or "none". */
function limitText(limit: BudgetStatus["session"]["limit"]): string {
  if (!limit) return "none";
  const caps = [
    limit.usd !== undefined ? `$${limit.usd}` : null,
    limit.cny !== undefined ? `¥${limit.cny}` : null,
    limit.tokens !== undefined ? `${limit.tokens} tokens` : null,
  ].filter((x) => x !== null);
  return caps.length ? caps.join(", ") : "none";
}

function budgetText(id: string, b: BudgetStatus): string {
  const from = b.session.from === "session" ? "set for this session" : "from config";
  const lines = [
    `Session ${id} budget: ${limitText(b.session.limit)} (${from})`,
    `  spent: ${usageLine(b.session.spent)}`,
    `Project today (${b.projectDay.day}): ${limitText(b.projectDay.limit)}`,
    `  spent: ${usageLine(b.projectDay.spent)}`,
    `State: ${b.state}${b.message ? ` — ${b.message}` : ""}`,
  ];
  if (b.state !== "stop" && b.session.spent.calls > 0)
    lines.push(`Continue the session with \`nbook run --session ${id}\` (or chat --session ${id}).`);
  return `${lines.join("\n")}\n`;
}

/** `nbook sessions list|show|context|budget|export|rewind|fork|rename|archive|restore|delete`. */
export function registerSessions(program: Command): void {
  const sessions = program
    .command("sessions")
    .description(
      "List, show, export, rewind, fork, rename, archive and delete agent sessions; what each model call was sent and cost",
    );
  registerSessionManagement(sessions);
  sessions
    .command("list")
    .description("List sessions, most recently active first")
    .option("--project <name>", "only sessions of this project")
    .option("--limit <n>", "at most this many sessions (default: all)", Number)
    .option("--tree", "show which agent created which: each session with the agents it created under it")
    .option("--workspace <dir>", "workspace root")
    .option("--json", "print JSON (with --tree: each session with its children)")
    .action((o: { project?: string; limit?: number; tree?: boolean; workspace?: string; json?: boolean }) => {
      try {
        if (o.limit !== undefined && !(Number.isInteger(o.limit) && o.limit > 0))
          throw new NbError("invalid_input", "--limit must be a positive integer");
        if (o.tree) {
          const roots = withStore(o.workspace, (store) =>
            sessionTree(store.listSessions({ project: o.project, limit: o.limit }), (id) => store.linkOf(id)),
          );
          if (o.json) printJson(treeJson(roots));
          else if (!roots.length) writeOut("No sessions yet.\n");
          else writeOut(`${renderTree(roots, treeLine).join("\n")}\n`);
          return;
        }
        const list = withStore(o.workspace, (store) =>
          store.listSessions({ project: o.project, limit: o.limit }),
        );
        if (o.json) printJson(list);
        else if (!list.length) writeOut("No sessions yet. Start one with `nbook chat` or `nbook run`.\n");
        else {
          writeOut(
            `${"id".padStart(4)} ${"status".padEnd(8)} ${"mode".padEnd(7)} ${"profile".padEnd(16)} ${"project".padEnd(14)} ${"items".padStart(5)}  updated (UTC)     title\n`,
          );
          for (const s of list) writeOut(`${listLine(s)}\n`);
        }
      } catch (e) {
        reportCliError(e, o.json);
      }
    });
  sessions
    .command("show")
    .description(
      "Print a session's transcript (its active branch, streamed page by page, or one page with --limit/--before), with pending approvals and questions, the agents it created and its background jobs",
    )
    .argument("<id>", "session id")
    .option("--limit <n>", `only the newest n entries of the branch (1-${MAX_PAGE})`, Number)
    .option("--before <entryId>", "the page of entries before this one (the cursor a page names)")
    .option("--workspace <dir>", "workspace root")
    .option(
      "--json",
      "print the session, its active path (with --limit/--before: one page and its cursors), tasks, pending approvals, queued inputs, children and jobs as JSON",
    )
    .action((id: string, o: ShowOptions) => {
      try {
        if (o.limit !== undefined && !(Number.isInteger(o.limit) && o.limit >= 1 && o.limit <= MAX_PAGE))
          throw new NbError("invalid_input", `--limit must be a whole number from 1 to ${MAX_PAGE}`);
        withStore(o.workspace, (store) => showSession(store, id, o));
      } catch (e) {
        reportCliError(e, o.json);
      }
    });
  sessions
    .command("rewind")
    .description(
      "Move a session back to an entry of its active branch: the conversation (the next message branches there), the files (the changes its later calls made are reverted), or both",
    )
    .argument("<id>", "session id")
    .requiredOption("--to <entry>", "the entry id to go back to (see nbook sessions show --json)")
    .option("--conversation", "only move the conversation back (the default)")
    .option("--files", "only take back the changes made after the entry")
    .option("--both", "take back the changes, then move the conversation back")
    .option("--workspace <dir>", "workspace root")
    .option("--json", "print JSON")
    .action(
      async (
        id: string,
        o: {
          to: string;
          conversation?: boolean;
          files?: boolean;
          both?: boolean;
          workspace?: string;
          json?: boolean;
        },
      ) => {
        try {
          const picked = (["conversation", "files", "both"] as const).filter((k) => o[k]);
          if (picked.length > 1)
            throw new NbError("invalid_input", "Give one of --conversation, --files or --both");
          const scope: RewindScope = picked[0] ?? "conversation";
          const workspace = Workspace.discover({ workspace: o.workspace });
          const store = SessionStore.forWorkspace(workspace);
          try {
            store.recoverInterrupted();
            const r = await rewindSession(store, workspace, id, o.to, scope);
            if (o.json) printJson(r);
            else writeOut(rewindText(r, scope));
          } finally {
            store.close();
          }
        } catch (e) {
          reportCliError(e, o.json);
        }
      },
    );
  sessions
    .command("fork")
    .description("Start a new session from an entry of a session (any branch): its conversation up to there")
    .argument("<id>", "session id")
    .requiredOption("--at <entry>", "the entry the new session starts from")
    .option("--workspace <dir>", "workspace root")
    .option("--json", "print the new session as JSON")
    .action((id: string, o: { at: string; workspace?: string; json?: boolean }) => {
      try {
        const fork = withStore(o.workspace, (store) => store.forkSession(id, o.at));
        if (o.json) printJson(fork);
        else
          writeOut(
            `Forked session ${id} at entry ${o.at} as session ${fork.id} (nbook chat --session ${fork.id}).\n`,
          );
      } catch (e) {
        reportCliError(e, o.json);
      }
    });
  sessions
    .command("context")
    .description(
      "Show what a model call of a session was sent: its sections with token counts, the canon brought in and why, and the usage and cost the provider reported (default: the latest call)",
    )
    .argument("<id>", "session id")
    .option("--call <k>", "the session's k-th model call (1 is the first)", Number)
    .option("--workspace <dir>", "workspace root")
    .option("--json", "print the call (manifest, usage, cost) and the session's totals as JSON")
    .action((id: string, o: { call?: number; workspace?: string; json?: boolean }) => {
      try {
        if (o.call !== undefined && !(Number.isInteger(o.call) && o.call > 0))
          throw new NbError("invalid_input", "--call must be a positive integer");
        withStore(o.workspace, (store) => {
          const calls = store.calls(id);
          const call = o.call !== undefined ? store.call(id, o.call) : calls.at(-1);
          if (o.json) {
            printJson({ call: call ?? null, calls: calls.length, usage: store.sessionUsage(id) });
            return;
          }
          if (!call) {
            writeOut(`Session ${store.session(id).id} has made no model call yet.\n`);
            return;
          }
          let out = manifestText(call);
          if (calls.length > 1) {
            out += `\nCalls of session ${id} (see one with --call K):\n`;
            for (const c of calls) out += `  ${callLine(c)}\n`;
          }
          out += `\nSession total: ${usageLine(store.sessionUsage(id))}\n`;
          writeOut(out);
        });
      } catch (e) {
        reportCliError(e, o.json);
      }
    });
  sessions
    .command("budget")
    .description(
      "Show where a session stands against its budgets, or raise, lower or lift its own limit (it replaces budgets.session of the config for this session), so a run stopped at the limit can continue",
    )
    .argument("<id>", "session id")
    .option("--usd <n>", "this session's limit in USD (the other limits stay)", Number)
    .option("--cny <n>", "this session's limit in CNY (the other limits stay)", Number)
    .option("--tokens <n>", "this session's limit in tokens, input + output (the other limits stay)", Number)
    .option("--lift", "no session limit for this session")
    .option("--reset", "drop this session's own limit: the config's applies again")
    .option("--workspace <dir>", "workspace root")
    .option("--json", "print the budget status as JSON")
    .action(
      (
        id: string,
        o: {
          usd?: number;
          cny?: number;
          tokens?: number;
          lift?: boolean;
          reset?: boolean;
          workspace?: string;
          json?: boolean;
        },
      ) => {
        try {
          const change: BudgetChange = {
            ...(o.usd !== undefined ? { usd: o.usd } : {}),
            ...(o.cny !== undefined ? { cny: o.cny } : {}),
            ...(o.tokens !== undefined ? { tokens: o.tokens } : {}),
            ...(o.lift ? { lift: true as const } : {}),
            ...(o.reset ? { reset: true as const } : {}),
          };
          const workspace = Workspace.discover({ workspace: o.workspace });
          const store = SessionStore.forWorkspace(workspace);
          try {
            const status = Object.keys(change).length
              ? changeSessionBudget(store, workspace, id, change)
              : sessionBudgetStatus(store, workspace, id);
            if (o.json) printJson(status);
            else writeOut(budgetText(store.session(id).id, status));
          } finally {
            store.close();
          }
        } catch (e) {
          reportCliError(e, o.json);
        }
      },
    );
  sessions
    .command("export")
    .description("Export a session: md (readable, active branch) or jsonl (every entry of every branch)")
    .argument("<id>", "session id")
    .option("--format <format>", "md or jsonl", "md")
    .option("--out <file>", "write to this file instead of stdout")
    .option("--workspace <dir>", "workspace root")
    .action((id: string, o: { format: string; out?: string; workspace?: string }) => {
      try {
        if (o.format !== "md" && o.format !== "jsonl") {
          throw new NbError("invalid_input", `--format must be md or jsonl, not ${o.format}`);
        }
        const text = withStore(o.workspace, (store) => {
          const session = store.session(id);
          return o.format === "md"
            ? exportMarkdown(session, store.activePath(id))
            : exportJsonl(session, store.allEntries(id), store.approvals(id));
        });
        if (o.out) writeFileAtomicSync(o.out, text);
        else writeOut(text);
      } catch (e) {
        reportCliError(e);
      }
    });
}
