import type Database from "better-sqlite3";
import { NbError } from "../../core/errors.js";
import { now, toKey } from "../../core/sqlite.js";
import { type ApprovalRow, toApproval } from "./rows.js";
import type { Approval, EntryData } from "./schema.js";

/** Durable approvals. Rows are written only from the entry tree, in the same transaction as their entries. */
export class ApprovalTable {
  private readonly insertStmt: Database.Statement;
  private readonly byId: Database.Statement;
  private readonly settleStmt: Database.Statement;
  private readonly pendingBySession: Database.Statement;
  private readonly pendingAll: Database.Statement;
  private readonly bySession: Database.Statement;

  constructor(db: Database.Database) {
    this.insertStmt = db.prepare(
      `INSERT INTO approvals (id, session_id, call_id, tool_key, kind, input, preview, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.byId = db.prepare("SELECT * FROM approvals WHERE id = ?");
    this.settleStmt = db.prepare(
      "UPDATE approvals SET status = ?, reason = ?, settled_at = ? WHERE id = ? AND status = 'pending'",
    );
    this.pendingBySession = db.prepare(
      "SELECT * FROM approvals WHERE session_id = ? AND status = 'pending' ORDER BY id",
    );
    this.pendingAll = db.prepare("SELECT * FROM approvals WHERE status = 'pending' ORDER BY id");
    this.bySession = db.prepare("SELECT * FROM approvals WHERE session_id = ? ORDER BY id");
  }

  /** Record the approval raised by an approval_request entry (its id becomes the approval id). */
  insert(entryKey: number, sessionKey: number, data: EntryData<"approval_request">, createdAt: string): void {
    this.insertStmt.run(
      entryKey,
      sessionKey,
      data.callId,
      data.key,
      data.kind,
      JSON.stringify(data.input ?? null),
      JSON.stringify(data.preview),
      createdAt,
    );
  }

  /** Settle a pending approval of `sessionKey`; `not_found` or `conflict` (already settled). */
  settle(sessionKey: number, data: EntryData<"approval_decision">): void {
    const row = this.row(data.approvalId);
    if (row.session_id !== sessionKey)
      throw new NbError("not_found", `No approval "${data.approvalId}" in this session`);
    if (row.call_id !== data.callId) {
      throw new NbError(
        "invalid_input",
        `Approval ${data.approvalId} is for call ${row.call_id}, not ${data.callId}`,
      );
    }
    const status = data.approved ? "approved" : "rejected";
    const r = this.settleStmt.run(status, data.reason ?? null, now(), row.id);
    if (r.changes === 0)
      throw new NbError("conflict", `Approval ${data.approvalId} is already ${row.status}`);
  }

  /** One approval; `not_found` when none. */
  get(id: string): Approval {
    return toApproval(this.row(id));
  }

  /** Pending approvals of one session (or of every session), oldest first. */
  pending(sessionKey?: number): Approval[] {
    const rows = (
      sessionKey === undefined ? this.pendingAll.all() : this.pendingBySession.all(sessionKey)
    ) as ApprovalRow[];
    return rows.map(toApproval);
  }

  /** Every approval of a session, oldest first. */
  all(sessionKey: number): Approval[] {
    return (this.bySession.all(sessionKey) as ApprovalRow[]).map(toApproval);
  }

  private row(id: string): ApprovalRow {
    const row = this.byId.get(toKey(id, "approval")) as ApprovalRow | undefined;
    if (!row) throw new NbError("not_found", `No approval with id "${id}"`);
    return row;
  }
}
