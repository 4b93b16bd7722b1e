import type Database from "better-sqlite3";
import { NbError } from "../../core/errors.js";
import { now, toKey } from "../../core/sqlite.js";

/** The link a parent session holds to a child it created (collaboration). */
export interface AgentLink {
  parentSessionId: string;
  childSessionId: string;
  linkedAt: string;
  /** When the parent dropped the link (`detach_agent`); null while it holds it. */
  detachedAt: string | null;
}

interface LinkRow {
  child_session_id: number;
  parent_session_id: number;
  linked_at: string;
  detached_at: string | null;
}

function toLink(r: LinkRow): AgentLink {
  return {
    parentSessionId: String(r.parent_session_id),
    childSessionId: String(r.child_session_id),
    linkedAt: r.linked_at,
    detachedAt: r.detached_at,
  };
}

/**
 * Parent → child links, one row per child (a child has one creator). A detached link stays as a
 * record; it no longer gives the parent any access to the child.
 */
export class LinkTable {
  private readonly insertStmt: Database.Statement;
  private readonly byChild: Database.Statement;
  private readonly byParent: Database.Statement;
  private readonly liveByParent: Database.Statement;
  private readonly detachStmt: Database.Statement;

  constructor(db: Database.Database) {
    this.insertStmt = db.prepare(
      "INSERT INTO agent_links (child_session_id, parent_session_id, linked_at) VALUES (?, ?, ?)",
    );
    this.byChild = db.prepare("SELECT * FROM agent_links WHERE child_session_id = ?");
    this.byParent = db.prepare(
      "SELECT * FROM agent_links WHERE parent_session_id = ? ORDER BY child_session_id",
    );
    this.liveByParent = db.prepare(
      "SELECT * FROM agent_links WHERE parent_session_id = ? AND detached_at IS NULL ORDER BY child_session_id",
    );
    this.detachStmt = db.prepare(
      "UPDATE agent_links SET detached_at = ? WHERE child_session_id = ? AND detached_at IS NULL",
    );
  }

  /** Record that `parentKey` created `childKey`. */
  insert(parentKey: number, childKey: number): void {
    this.insertStmt.run(childKey, parentKey, now());
  }

  /** The link that made `childId`, detached or not; null for a session nobody created. */
  ofChild(childId: string): AgentLink | null {
    const row = this.byChild.get(toKey(childId, "session")) as LinkRow | undefined;
    return row ? toLink(row) : null;
  }

  /** The links a parent holds (only live ones unless `includeDetached`), by child id. */
  ofParent(parentId: string, includeDetached = false): AgentLink[] {
    const stmt = includeDetached ? this.byParent : this.liveByParent;
    return (stmt.all(toKey(parentId, "session")) as LinkRow[]).map(toLink);
  }

  /** Drop a live link; `conflict` when it is already detached, `not_found` when there is none. */
  detach(childId: string): AgentLink {
    const key = toKey(childId, "session");
    const r = this.detachStmt.run(now(), key);
    const link = this.ofChild(childId);
    if (!link) throw new NbError("not_found", `Session ${childId} was not created by an agent`);
    if (r.changes === 0) throw new NbError("conflict", `Session ${childId} is already detached`);
    return link;
  }
}
