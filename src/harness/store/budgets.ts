import type Database from "better-sqlite3";
import { z } from "zod";
import { now } from "../../core/sqlite.js";
import { type Limit, LimitSchema } from "../../models/budgets.js";

/** A session's own budget as stored: its limit (null: lifted, no session limit) and when it was set. */
export const SessionBudgetSchema = z.object({ limit: LimitSchema.nullable(), setAt: z.string() }).strict();
export type SessionBudget = z.infer<typeof SessionBudgetSchema>;

interface Row {
  limit_json: string | null;
  set_at: string;
}

/** The session_budgets table: the budget the user set for one session, replacing the config's. */
export class SessionBudgetTable {
  private readonly getStmt: Database.Statement;
  private readonly setStmt: Database.Statement;
  private readonly clearStmt: Database.Statement;

  constructor(db: Database.Database) {
    this.getStmt = db.prepare("SELECT limit_json, set_at FROM session_budgets WHERE session_id = ?");
    this.setStmt = db.prepare(
      `INSERT INTO session_budgets (session_id, limit_json, set_at) VALUES (?, ?, ?)
       ON CONFLICT(session_id) DO UPDATE SET limit_json = excluded.limit_json, set_at = excluded.set_at`,
    );
    this.clearStmt = db.prepare("DELETE FROM session_budgets WHERE session_id = ?");
  }

  /** The session's own budget, or null when it follows the config. */
  get(sessionKey: number): SessionBudget | null {
    const row = this.getStmt.get(sessionKey) as Row | undefined;
    if (!row) return null;
    const limit = row.limit_json === null ? null : LimitSchema.parse(JSON.parse(row.limit_json));
    return { limit, setAt: row.set_at };
  }

  set(sessionKey: number, limit: Limit | null): SessionBudget {
    const setAt = now();
    this.setStmt.run(sessionKey, limit === null ? null : JSON.stringify(limit), setAt);
    return { limit, setAt };
  }

  clear(sessionKey: number): void {
    this.clearStmt.run(sessionKey);
  }
}
