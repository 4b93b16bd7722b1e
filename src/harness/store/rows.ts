import type { Approval, Entry, QueueItem, Session } from "./schema.js";

/** A sessions row as SQLite returns it. */
export interface SessionRow {
  id: number;
  profile_key: string;
  project: string | null;
  title: string;
  initial_mode: string;
  mode: string;
  model: string | null;
  initial: string;
  status: string;
  parent_session_id: number | null;
  leaf_id: number | null;
  entry_count: number;
  created_at: string;
  updated_at: string;
}

/** An entries row (the columns the API exposes). */
export interface EntryRow {
  id: number;
  session_id: number;
  parent_id: number | null;
  depth: number;
  kind: string;
  data: string;
  created_at: string;
}

export interface ApprovalRow {
  id: number;
  session_id: number;
  call_id: string;
  tool_key: string;
  kind: string;
  input: string;
  preview: string;
  status: string;
  reason: string | null;
  created_at: string;
  settled_at: string | null;
}

export interface QueueRow {
  id: number;
  session_id: number;
  kind: string;
  text: string;
  created_at: string;
  consumed_at: string | null;
}

/** Map a sessions row to a Session. */
export function toSession(r: SessionRow): Session {
  return {
    id: String(r.id),
    profileKey: r.profile_key,
    project: r.project,
    title: r.title,
    mode: r.mode as Session["mode"],
    model: r.model,
    initial: JSON.parse(r.initial),
    status: r.status as Session["status"],
    parentSessionId: r.parent_session_id === null ? null : String(r.parent_session_id),
    leafId: r.leaf_id === null ? null : String(r.leaf_id),
    entryCount: r.entry_count,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Map an entries row to an Entry. */
export function toEntry(r: EntryRow): Entry {
  return {
    id: String(r.id),
    sessionId: String(r.session_id),
    parentId: r.parent_id === null ? null : String(r.parent_id),
    depth: r.depth,
    kind: r.kind,
    data: JSON.parse(r.data),
    createdAt: r.created_at,
  } as Entry;
}

/** Map an approvals row to an Approval. */
export function toApproval(r: ApprovalRow): Approval {
  return {
    id: String(r.id),
    sessionId: String(r.session_id),
    callId: r.call_id,
    toolKey: r.tool_key,
    kind: r.kind as Approval["kind"],
    input: JSON.parse(r.input),
    preview: JSON.parse(r.preview),
    status: r.status as Approval["status"],
    reason: r.reason,
    createdAt: r.created_at,
    settledAt: r.settled_at,
  };
}

/** Map a queue_items row to a QueueItem. */
export function toQueueItem(r: QueueRow): QueueItem {
  return {
    id: String(r.id),
    sessionId: String(r.session_id),
    kind: r.kind as QueueItem["kind"],
    text: r.text,
    seq: r.id,
    consumed: r.consumed_at !== null,
    createdAt: r.created_at,
    consumedAt: r.consumed_at,
  };
}
