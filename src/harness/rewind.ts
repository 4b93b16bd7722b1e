import { z } from "zod";
import { NbError } from "../core/errors.js";
import { History } from "../history/history.js";
import { revertChanges } from "../history/revert.js";
import type { Change } from "../history/schema.js";
import type { Workspace } from "../workspace/workspace.js";
import type { Entry, Session, SessionStore } from "./store/index.js";

/** What a rewind takes back: the conversation (the leaf moves), the files (changes revert), or both. */
export const RewindScopeSchema = z.enum(["conversation", "files", "both"]);
export type RewindScope = z.infer<typeof RewindScopeSchema>;

/** What a rewind or an undo did. */
export const RewindResultSchema = z
  .object({
    sessionId: z.string(),
    /** The entry the session's leaf is at afterwards. */
    leafId: z.string().nullable(),
    /** Entries of the active path the conversation no longer continues from (still stored, on their branch). */
    dropped: z.number().int(),
    /** The changes taken back, newest first. */
    reverted: z.array(z.string()),
    /** The revert's own change (null: nothing needed taking back). */
    revertChange: z.string().nullable(),
  })
  .strict();
export type RewindResult = z.infer<typeof RewindResultSchema>;

/** The ids of the tool calls these entries made or answered. */
function callIdsOf(entries: readonly Entry[]): Set<string> {
  const ids = new Set<string>();
  for (const e of entries) {
    if (e.kind === "assistant") for (const c of e.data.toolCalls) ids.add(c.id);
    if (e.kind === "tool_result") ids.add(e.data.callId);
  }
  return ids;
}

function assertIdle(session: Session): void {
  if (session.status === "running" || session.status === "waiting")
    throw new NbError("conflict", `Session ${session.id} is ${session.status}; rewind it when it is idle`);
}

/** The sessions this one started, and theirs (sub-agents, workflow participants), by the session tree. */
function descendantsOf(store: SessionStore, sessionId: string): string[] {
  const out: string[] = [];
  const queue = [sessionId];
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    for (const child of store.listSessions({ parentSessionId: id })) {
      out.push(child.id);
      queue.push(child.id);
    }
  }
  return out;
}

/**
 * Take back, all or nothing, the recorded changes of the turns among `entries`: those of the
 * session's own calls (by call id, or by the turn they were recorded in), and those the sessions
 * it started made since the first of the entries. Nothing to take back: no revert.
 */
async function revertTurnsOf(
  store: SessionStore,
  workspace: Workspace,
  session: Session,
  entries: readonly Entry[],
): Promise<{ reverted: Change[]; made: Change | null }> {
  if (!session.project || entries.length === 0) return { reverted: [], made: null };
  const calls = callIdsOf(entries);
  const turns = new Set(entries.filter((e) => e.kind === "user").map((e) => e.id));
  const history = History.of(workspace.project(session.project));
  await history.open();
  const own = history.index
    .list({ session: session.id })
    .filter((c) => (c.callId !== null && calls.has(c.callId)) || (c.turn !== null && turns.has(c.turn)));
  const since = entries[0].createdAt;
  const theirs = descendantsOf(store, session.id).flatMap((id) => history.index.list({ session: id, since }));
  const changes = [...own, ...theirs];
  if (!changes.length) return { reverted: [], made: null };
  const made = await revertChanges(history, changes, {});
  return { reverted: history.index.newestFirst(changes), made };
}

/**
 * Move a session back to an entry of its active branch: `conversation` moves the leaf there (the
 * next message branches from it; later entries stay stored on their branch), `files` takes back the
 * changes its turns made after it, the sessions it started included (through the history, refused with `conflict` and nothing changed
 * on a conflict), `both` does the files first, then the conversation.
 */
export async function rewindSession(
  store: SessionStore,
  workspace: Workspace,
  sessionId: string,
  entryId: string,
  scope: RewindScope,
): Promise<RewindResult> {
  const session = store.session(sessionId);
  assertIdle(session);
  const path = store.activePath(sessionId);
  const at = path.findIndex((e) => e.id === entryId);
  if (at < 0) {
    store.pathTo(sessionId, entryId);
    throw new NbError(
      "invalid_input",
      `Entry ${entryId} is not on session ${sessionId}'s active branch; start a new session from it with \`nbook sessions fork ${sessionId} --at ${entryId}\``,
      { fields: [{ pointer: "/entry", message: "not on the active branch" }] },
    );
  }
  const later = path.slice(at + 1);
  const files =
    scope === "conversation"
      ? { reverted: [], made: null }
      : await revertTurnsOf(store, workspace, session, later);
  const leafId = scope === "files" ? session.leafId : store.setLeaf(sessionId, entryId).leafId;
  return {
    sessionId,
    leafId,
    dropped: scope === "files" ? 0 : later.length,
    reverted: files.reverted.map((c) => c.id),
    revertChange: files.made?.id ?? null,
  };
}

/**
 * Take back the changes of the session's last turn (from its latest user message on): the files and
 * rows its calls changed, and those of the sub-agents and workflow participants it started. The
 * conversation stays as it is.
 */
export async function undoLastTurn(
  store: SessionStore,
  workspace: Workspace,
  sessionId: string,
): Promise<RewindResult> {
  const session = store.session(sessionId);
  assertIdle(session);
  const path = store.activePath(sessionId);
  let start = path.length - 1;
  while (start >= 0 && path[start].kind !== "user") start--;
  if (start < 0) throw new NbError("invalid_input", `Session ${sessionId} has no turn to undo yet`);
  const files = await revertTurnsOf(store, workspace, session, path.slice(start));
  return {
    sessionId,
    leafId: session.leafId,
    dropped: 0,
    reverted: files.reverted.map((c) => c.id),
    revertChange: files.made?.id ?? null,
  };
}
