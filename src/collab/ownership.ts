import { NbError } from "../core/errors.js";
import type { SessionStore } from "../harness/store/index.js";

/** How a target session relates to the calling session; null = not at all (no access). */
export type Relation = "self" | "descendant" | "ancestor";

/** What a caller wants to do with another session (named in refusals). */
export type AccessAction = "invoke" | "get" | "detach" | "read";

/** Links are followed at most this deep: creation refuses deeper trees, so a walk never runs away. */
export const MAX_AGENT_DEPTH = 6;

/** The session that created `id` and still holds its link; null for a root or a detached child. */
export function linkedParent(store: SessionStore, id: string): string | null {
  const link = store.linkOf(id);
  return link && link.detachedAt === null ? link.parentSessionId : null;
}

/** The live parent chain of a session, nearest first. */
export function ancestors(store: SessionStore, id: string): string[] {
  const out: string[] = [];
  let at = linkedParent(store, id);
  while (at !== null && out.length <= MAX_AGENT_DEPTH) {
    out.push(at);
    at = linkedParent(store, at);
  }
  return out;
}

/**
 * The ownership policy: a session reaches itself, the sessions it created (live links,
 * transitively) and its own parent chain — nothing else. Both sessions must be in one project.
 */
export function relationOf(store: SessionStore, callerId: string, targetId: string): Relation | null {
  if (callerId === targetId) return "self";
  const caller = store.session(callerId);
  const target = store.session(targetId);
  if (caller.project !== target.project) return null;
  if (ancestors(store, targetId).includes(callerId)) return "descendant";
  if (ancestors(store, callerId).includes(targetId)) return "ancestor";
  return null;
}

/**
 * Check the policy for one action; `not_allowed` for any other session, and the same answer for a
 * session that does not exist, so ids cannot be probed.
 */
export function assertAccess(
  store: SessionStore,
  callerId: string,
  targetId: string,
  action: AccessAction,
): Relation {
  let relation: Relation | null = null;
  try {
    relation = relationOf(store, callerId, targetId);
  } catch (e) {
    if (!(e instanceof NbError) || e.code !== "not_found") throw e;
  }
  if (!relation) {
    throw new NbError(
      "not_allowed",
      `Session ${targetId} is not yours to ${action}: an agent reaches only its own session, the agents it created (get_agent lists them) and the sessions that created it`,
    );
  }
  return relation;
}
