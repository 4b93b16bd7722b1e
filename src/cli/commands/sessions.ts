import type { Command } from "commander";
import { renderTree, type SessionNode, sessionTree } from "../../collab/tree.js";
import { writeFileAtomicSync } from "../../core/atomic-write.js";
import { NbError } from "../../core/errors.js";
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
  const open = new Set(store.pendingToolCalls(id).map((p) => p.call.id));
  for (const e of open.size ? store.sinceLastAssistant(id) : []) {
    if (e.kind !== "user_input_request" || !open.has(e.data.callId)) continue;
    out += `\nPending question ${e.id}: ${oneLine(e.data.question)}  (nbook approve ${session.id} ${e.id} --answer "…")\n`;
  }
  writeOut(out);
}

/** `nbook sessions list|show|export`. */
export function registerSessions(program: Command): void {
  const sessions = program.command("sessions").description("List, show and export agent sessions");
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
