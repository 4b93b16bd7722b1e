import type Database from "better-sqlite3";
import { NbError } from "../../core/errors.js";
import { now, toKey } from "../../core/sqlite.js";
import { formatFieldErrors, zodFieldErrors } from "../../core/validate.js";
import type { ApprovalTable } from "./approvals.js";
import { ActivePaths } from "./paths.js";
import type { QueueTable } from "./queues.js";
import { type EntryRow, toEntry } from "./rows.js";
import {
  ENTRY_DATA,
  type Entry,
  type EntryData,
  type EntryInput,
  EntryInputSchema,
  type ParsedEntryInput,
  type PendingCall,
  type Session,
  type Task,
} from "./schema.js";
import { NEXT_ACTIVITY } from "./sessions.js";

interface HeadRow {
  id: number;
  leaf_id: number | null;
  initial_mode: string;
  status: string;
}

interface LeafRow {
  depth: number;
  seg: number;
  mode: string;
  tasks_ref: number | null;
  session_id: number;
}

interface WalkRow {
  parent_id: number | null;
  kind: string;
  data: string;
}

const ENTRY_COLUMNS = "id, session_id, parent_id, depth, kind, data, created_at";

/** Validate one entry input, once; field pointers are rooted at `/<index>`. */
function parseEntry(input: EntryInput, index: number): ParsedEntryInput {
  const kind = (input as { kind?: unknown })?.kind;
  if (typeof kind !== "string" || !Object.hasOwn(ENTRY_DATA, kind)) {
    throw new NbError("invalid_input", `Unknown entry kind: ${String(kind)}`, {
      fields: [
        { pointer: `/${index}/kind`, message: `expected one of ${Object.keys(ENTRY_DATA).join(", ")}` },
      ],
    });
  }
  const r = EntryInputSchema.safeParse(input);
  if (!r.success) {
    const fields = zodFieldErrors(r.error, [index]);
    throw new NbError("invalid_input", `Invalid ${kind} entry:\n${formatFieldErrors(fields)}`, { fields });
  }
  return r.data;
}

/**
 * The append-only entry tree of every session. Appends hang under the session's leaf and move it;
 * each batch is one IMMEDIATE transaction, so a step is stored whole or not at all.
 */
export class EntryTree {
  private readonly head: Database.Statement;
  private readonly leafInfo: Database.Statement;
  private readonly insert: Database.Statement;
  private readonly selfTasksRef: Database.Statement;
  private readonly selfSeg: Database.Statement;
  private readonly hasChild: Database.Statement;
  private readonly paths: ActivePaths;
  private readonly moveHead: Database.Statement;
  private readonly byId: Database.Statement;
  private readonly walk: Database.Statement;
  private readonly childrenOf: Database.Statement;
  private readonly allOf: Database.Statement;
  private readonly tasksAt: Database.Statement;
  private readonly countCalls: Database.Statement;
  private readonly callsOf: Database.Statement;
  private readonly commitTx: (key: number, inputs: EntryInput[]) => Entry[];

  constructor(
    private readonly db: Database.Database,
    private readonly approvals: ApprovalTable,
    private readonly queues: QueueTable,
  ) {
    this.head = db.prepare("SELECT id, leaf_id, initial_mode, status FROM sessions WHERE id = ?");
    this.leafInfo = db.prepare("SELECT depth, seg, mode, tasks_ref, session_id FROM entries WHERE id = ?");
    this.insert = db.prepare(
      `INSERT INTO entries (session_id, parent_id, depth, kind, mode, tasks_ref, seg, data, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.selfTasksRef = db.prepare("UPDATE entries SET tasks_ref = id WHERE id = ?");
    this.selfSeg = db.prepare("UPDATE entries SET seg = id WHERE id = ?");
    this.hasChild = db.prepare("SELECT 1 FROM entries WHERE parent_id = ? LIMIT 1");
    this.paths = new ActivePaths(db);
    this.moveHead = db.prepare(
      `UPDATE sessions SET leaf_id = ?, mode = ?, entry_count = entry_count + ?, updated_at = ?,
         activity = ${NEXT_ACTIVITY} WHERE id = ?`,
    );
    this.byId = db.prepare(`SELECT ${ENTRY_COLUMNS} FROM entries WHERE id = ?`);
    this.walk = db.prepare("SELECT parent_id, kind, data FROM entries WHERE id = ?");
    this.childrenOf = db.prepare(`SELECT ${ENTRY_COLUMNS} FROM entries WHERE parent_id = ? ORDER BY id`);
    this.allOf = db.prepare(`SELECT ${ENTRY_COLUMNS} FROM entries WHERE session_id = ? ORDER BY id`);
    this.tasksAt = db.prepare(
      "SELECT t.data FROM entries l JOIN entries t ON t.id = l.tasks_ref WHERE l.id = ?",
    );
    this.countCalls = db.prepare(
      `INSERT INTO session_counters (session_id, model_calls) VALUES (?, ?)
       ON CONFLICT(session_id) DO UPDATE SET model_calls = model_calls + excluded.model_calls`,
    );
    this.callsOf = db.prepare("SELECT model_calls FROM session_counters WHERE session_id = ?").pluck(true);
    const tx = db.transaction((key: number, inputs: EntryInput[]) => this.commitInTx(key, inputs));
    this.commitTx = (key, inputs) => tx.immediate(key, inputs);
  }

  /**
   * Append entries as one chain under the leaf, in one transaction, and move the leaf to the last.
   * Checks that keep the tree consistent: a tool result answers an open call of this batch or a
   * pending call on the active path (once); a new assistant message needs every earlier call answered;
   * a mode change starts from the current mode; approvals and queue items are settled/consumed here.
   */
  commit(sessionId: string, inputs: EntryInput[]): Entry[] {
    if (!Array.isArray(inputs) || inputs.length === 0) {
      throw new NbError("invalid_input", "A step needs at least one entry");
    }
    return this.commitTx(toKey(sessionId, "session"), inputs);
  }

  private commitInTx(key: number, inputs: EntryInput[]): Entry[] {
    const head = this.headRow(key);
    if (head.status === "archived") throw new NbError("conflict", `Session ${key} is archived`);
    let parent = head.leaf_id;
    let depth = 0;
    let mode = head.initial_mode;
    let tasksRef: number | null = null;
    // The first entry continues the leaf's segment only if the leaf has no child yet (no branch).
    let seg: number | null = null;
    if (parent !== null) {
      const leaf = this.leafInfo.get(parent) as LeafRow;
      depth = leaf.depth + 1;
      mode = leaf.mode;
      tasksRef = leaf.tasks_ref;
      if (!this.hasChild.get(parent)) seg = leaf.seg;
    }
    // Calls still unanswered on the active path, loaded only when an entry needs them.
    let pending: Map<string, string> | null = null;
    const pendingCalls = () => {
      pending ??= new Map(this.pendingFrom(head.leaf_id).map((p) => [p.call.id, p.call.key]));
      return pending;
    };
    const open = new Map<string, string>();
    const out: Entry[] = [];
    const createdAt = now();

    inputs.forEach((input, i) => {
      const entry = parseEntry(input, i);
      switch (entry.kind) {
        case "assistant": {
          const waiting = [...open.keys(), ...pendingCalls().keys()];
          if (waiting.length) {
            throw new NbError(
              "conflict",
              `Tool call(s) ${waiting.join(", ")} have no result yet; record their results (or aborts) before the next assistant message`,
            );
          }
          for (const c of entry.data.toolCalls) {
            if (open.has(c.id))
              throw new NbError("invalid_input", `Duplicate tool call id ${c.id} in one message`);
            open.set(c.id, c.key);
          }
          break;
        }
        case "tool_result": {
          const d = entry.data;
          const source = open.has(d.callId) ? open : pendingCalls().has(d.callId) ? pendingCalls() : null;
          if (!source) {
            throw new NbError(
              "invalid_input",
              `No pending tool call ${d.callId} for this result (unknown or already answered)`,
              {
                fields: [{ pointer: `/${i}/data/callId`, message: "no pending call with this id" }],
              },
            );
          }
          if (source.get(d.callId) !== d.key) {
            throw new NbError(
              "invalid_input",
              `Call ${d.callId} is a ${source.get(d.callId)} call, not ${d.key}`,
            );
          }
          source.delete(d.callId);
          break;
        }
        case "approval_request":
        case "user_input_request": {
          const callId = entry.data.callId;
          if (!open.has(callId) && !pendingCalls().has(callId)) {
            throw new NbError("invalid_input", `No pending tool call ${callId} to suspend`);
          }
          break;
        }
        case "mode_change": {
          const d = entry.data;
          if (d.from !== mode) throw new NbError("conflict", `The session is in ${mode} mode, not ${d.from}`);
          if (d.to === d.from) throw new NbError("invalid_input", `Already in ${d.to} mode`);
          mode = d.to;
          break;
        }
        case "task_list": {
          const ids = entry.data.tasks.map((t) => t.id);
          if (new Set(ids).size !== ids.length) throw new NbError("invalid_input", "Task ids must be unique");
          break;
        }
        default:
          break;
      }
      const info = this.insert.run(
        key,
        parent,
        depth,
        entry.kind,
        mode,
        tasksRef,
        seg ?? 0,
        JSON.stringify(entry.data),
        createdAt,
      );
      const id = Number(info.lastInsertRowid);
      if (seg === null) {
        this.selfSeg.run(id);
        seg = id;
      }
      if (entry.kind === "task_list") {
        this.selfTasksRef.run(id);
        tasksRef = id;
      } else if (entry.kind === "approval_request") {
        this.approvals.insert(id, key, entry.data, createdAt);
      } else if (entry.kind === "approval_decision") {
        this.approvals.settle(key, entry.data);
      } else if (entry.kind === "user" && entry.data.queueItemId) {
        this.queues.consume(key, entry.data.queueItemId, id);
      }
      out.push({
        ...entry,
        id: String(id),
        sessionId: String(key),
        parentId: parent === null ? null : String(parent),
        depth,
        createdAt,
      });
      parent = id;
      depth++;
    });
    this.moveHead.run(parent, mode, out.length, createdAt, key);
    const calls = out.filter((e) => e.kind === "assistant" || e.kind === "compaction").length;
    if (calls) this.countCalls.run(key, calls);
    return out;
  }

  /** Move the leaf to `entryId` (or before the first entry with null): the next append starts a branch there. */
  setLeaf(sessionId: string, entryId: string | null): void {
    const key = toKey(sessionId, "session");
    this.db
      .transaction(() => {
        const head = this.headRow(key);
        if (head.status === "running" || head.status === "waiting") {
          throw new NbError("conflict", `Session ${sessionId} is ${head.status}; branch when it is idle`);
        }
        let mode = head.initial_mode;
        let leaf: number | null = null;
        if (entryId !== null) {
          leaf = toKey(entryId, "entry");
          const row = this.leafInfo.get(leaf) as LeafRow | undefined;
          if (!row || row.session_id !== key)
            throw new NbError("not_found", `No entry ${entryId} in session ${sessionId}`);
          mode = row.mode;
        }
        this.moveHead.run(leaf, mode, 0, now(), key);
      })
      .immediate();
  }

  /** The active path, root first (entries are frozen: read-only). */
  activePath(session: Pick<Session, "id" | "leafId">): Entry[] {
    return this.paths.load(session);
  }

  /** The active path from entry `from` (on it) to the leaf, root side first. */
  pathFrom(session: Pick<Session, "id" | "leafId">, from: string): Entry[] {
    return this.paths.from(session, toKey(from, "entry"));
  }

  /** The latest entry of a kind on the active path (before an entry, its data containing a text), or null. */
  latestOnPath(
    session: Pick<Session, "id" | "leafId">,
    kind: string,
    opts: { before?: string; contains?: string } = {},
  ): Entry | null {
    const before = opts.before === undefined ? undefined : toKey(opts.before, "entry");
    return this.paths.latest(session, kind, before, opts.contains);
  }

  /** One entry; `not_found` when none. */
  get(entryId: string): Entry {
    const row = this.byId.get(toKey(entryId, "entry")) as EntryRow | undefined;
    if (!row) throw new NbError("not_found", `No entry with id "${entryId}"`);
    return toEntry(row);
  }

  /** The entries hanging directly under one entry (more than one = a branch point). */
  children(entryId: string): Entry[] {
    return (this.childrenOf.all(toKey(entryId, "entry")) as EntryRow[]).map(toEntry);
  }

  /** Every entry of a session (all branches), in append order. */
  all(sessionId: string): Entry[] {
    return (this.allOf.all(toKey(sessionId, "session")) as EntryRow[]).map(toEntry);
  }

  /** Model calls a session has recorded over all its branches (assistant and compaction entries). */
  modelCalls(sessionKey: number): number {
    return (this.callsOf.get(sessionKey) as number | undefined) ?? 0;
  }

  /** Tool calls of the latest assistant message on the active path that have no result on it. */
  pendingCalls(session: Pick<Session, "leafId">): PendingCall[] {
    return this.pendingFrom(session.leafId === null ? null : Number(session.leafId));
  }

  /** The task list at the leaf (the latest task_list snapshot on the active path). */
  tasks(session: Pick<Session, "leafId">): Task[] {
    if (session.leafId === null) return [];
    const row = this.tasksAt.get(Number(session.leafId)) as { data: string } | undefined;
    return row ? (JSON.parse(row.data) as EntryData<"task_list">).tasks : [];
  }

  // Walks up only as far as the latest assistant message: results after it are the only ones that
  // can answer its calls, because a new assistant message is refused while calls are open.
  private pendingFrom(leaf: number | null): PendingCall[] {
    const answered = new Set<string>();
    let id = leaf;
    while (id !== null) {
      const r = this.walk.get(id) as WalkRow;
      if (r.kind === "tool_result") answered.add((JSON.parse(r.data) as EntryData<"tool_result">).callId);
      else if (r.kind === "assistant") {
        const calls = (JSON.parse(r.data) as EntryData<"assistant">).toolCalls;
        const entryId = String(id);
        return calls.filter((c) => !answered.has(c.id)).map((call) => ({ entryId, call }));
      }
      id = r.parent_id;
    }
    return [];
  }

  private headRow(key: number): HeadRow {
    const head = this.head.get(key) as HeadRow | undefined;
    if (!head) throw new NbError("not_found", `No session with id "${key}"`);
    return head;
  }
}
