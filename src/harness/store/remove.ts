import type Database from "better-sqlite3";
import { NbError } from "../../core/errors.js";
import { toKey } from "../../core/sqlite.js";

/**
 * What would be lost by deleting a session, each a reason to refuse: its child sessions (their
 * parent would vanish), jobs it owns (their results are read through it), model calls it made
 * (the project's usage and cost totals are summed from them) and approvals still waiting.
 */
const KEEPERS: { sql: string; why: (n: number) => string }[] = [
  {
    sql: "SELECT COUNT(*) AS n FROM sessions WHERE parent_session_id = ?",
    why: (n) => `it started ${n} session(s); delete or archive those first`,
  },
  { sql: "SELECT COUNT(*) AS n FROM jobs WHERE owner_session_id = ?", why: (n) => `it owns ${n} job(s)` },
  {
    sql: "SELECT COUNT(*) AS n FROM model_calls WHERE session_id = ?",
    why: (n) => `its ${n} model call(s) count in the usage totals; archive it instead`,
  },
  {
    sql: "SELECT COUNT(*) AS n FROM approvals WHERE session_id = ? AND status = 'pending'",
    why: (n) => `${n} approval(s) still wait on it`,
  },
];

/** Rows of the session itself, in an order the foreign keys allow. */
const OWN_ROWS = [
  "DELETE FROM deliveries WHERE session_id = ?",
  "DELETE FROM queue_items WHERE session_id = ?",
  "DELETE FROM approvals WHERE session_id = ?",
  "DELETE FROM entries WHERE session_id = ?",
  "DELETE FROM session_runners WHERE session_id = ?",
  "DELETE FROM session_counters WHERE session_id = ?",
  "DELETE FROM session_budgets WHERE session_id = ?",
  "DELETE FROM agent_links WHERE child_session_id = ?",
  "DELETE FROM sessions WHERE id = ?",
];

/**
 * Delete an archived session and its transcript, in one transaction. Refused (`conflict`) when it
 * is not archived or deleting it would lose anything another record depends on (KEEPERS); ids are
 * never reused, so history entries that name it keep naming no other session.
 */
export function removeSession(db: Database.Database, id: string): void {
  const key = toKey(id, "session");
  db.transaction(() => {
    const row = db.prepare("SELECT status FROM sessions WHERE id = ?").get(key) as
      | { status: string }
      | undefined;
    if (!row) throw new NbError("not_found", `No session with id "${id}"`);
    if (row.status !== "archived")
      throw new NbError("conflict", `Session ${id} is ${row.status}: archive it before deleting it`);
    const reasons = KEEPERS.flatMap((k) => {
      const n = (db.prepare(k.sql).get(key) as { n: number }).n;
      return n > 0 ? [k.why(n)] : [];
    });
    if (reasons.length)
      throw new NbError("conflict", `Session ${id} cannot be deleted: ${reasons.join("; ")}`);
    for (const sql of OWN_ROWS) db.prepare(sql).run(key);
  }).immediate();
}
