import type Database from "better-sqlite3";
import { NbError } from "../../core/errors.js";
import { now, toKey } from "../../core/sqlite.js";
import { type QueueRow, toQueueItem } from "./rows.js";
import type { QueueItem, QueueKind } from "./schema.js";

/** Durable per-session queues (steer, followup, prompt), consumed in insertion order. */
export class QueueTable {
  private readonly insertStmt: Database.Statement;
  private readonly byId: Database.Statement;
  private readonly openByKind: Database.Statement;
  private readonly openAll: Database.Statement;
  private readonly consumeStmt: Database.Statement;
  private readonly clearKind: Database.Statement;
  private readonly clearAll: Database.Statement;

  constructor(db: Database.Database) {
    this.insertStmt = db.prepare(
      "INSERT INTO queue_items (session_id, kind, text, created_at) VALUES (?, ?, ?, ?)",
    );
    this.byId = db.prepare("SELECT * FROM queue_items WHERE id = ?");
    this.openByKind = db.prepare(
      "SELECT * FROM queue_items WHERE session_id = ? AND kind = ? AND consumed_at IS NULL ORDER BY id",
    );
    this.openAll = db.prepare(
      "SELECT * FROM queue_items WHERE session_id = ? AND consumed_at IS NULL ORDER BY id",
    );
    this.consumeStmt = db.prepare(
      "UPDATE queue_items SET consumed_at = ?, consumed_by = ? WHERE id = ? AND consumed_at IS NULL",
    );
    this.clearKind = db.prepare(
      "UPDATE queue_items SET consumed_at = ? WHERE session_id = ? AND kind = ? AND consumed_at IS NULL",
    );
    this.clearAll = db.prepare(
      "UPDATE queue_items SET consumed_at = ? WHERE session_id = ? AND consumed_at IS NULL",
    );
  }

  /** Add an item at the end of a session's queue. */
  enqueue(sessionKey: number, kind: QueueKind, text: string): QueueItem {
    const info = this.insertStmt.run(sessionKey, kind, text, now());
    return this.get(String(info.lastInsertRowid));
  }

  /** One item; `not_found` when none. */
  get(id: string): QueueItem {
    return toQueueItem(this.row(id));
  }

  /** Unconsumed items of a session, in order (all kinds, or one). */
  open(sessionKey: number, kind?: QueueKind): QueueItem[] {
    const rows = (kind ? this.openByKind.all(sessionKey, kind) : this.openAll.all(sessionKey)) as QueueRow[];
    return rows.map(toQueueItem);
  }

  /**
   * Mark an item consumed (by the entry that delivered it, when there is one). `conflict` when it was
   * already consumed: that is how a replayed delivery is detected.
   */
  consume(sessionKey: number, id: string, byEntryKey: number | null): void {
    const row = this.row(id);
    if (row.session_id !== sessionKey)
      throw new NbError("not_found", `No queue item "${id}" in this session`);
    const r = this.consumeStmt.run(now(), byEntryKey, row.id);
    if (r.changes === 0) throw new NbError("conflict", `Queue item ${id} was already consumed`);
  }

  /** Drop every unconsumed item of a session (one kind, or all); returns how many. */
  clear(sessionKey: number, kind?: QueueKind): number {
    return (kind ? this.clearKind.run(now(), sessionKey, kind) : this.clearAll.run(now(), sessionKey))
      .changes;
  }

  private row(id: string): QueueRow {
    const row = this.byId.get(toKey(id, "queue item")) as QueueRow | undefined;
    if (!row) throw new NbError("not_found", `No queue item with id "${id}"`);
    return row;
  }
}
