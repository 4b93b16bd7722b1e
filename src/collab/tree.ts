import type { AgentLink, Session } from "../harness/store/index.js";

/** A session with the sessions it created under it. */
export interface SessionNode {
  session: Session;
  /** Set on a child whose creator dropped the link (detach_agent). */
  detached: boolean;
  children: SessionNode[];
}

/**
 * Arrange sessions as the parent/child tree collaboration made. Roots keep the given order (most
 * recently active first); children follow in creation order. A child whose parent is not among
 * `sessions` (filtered out) is shown as a root. `linkOf` tells whether a child's link is detached.
 */
export function sessionTree(
  sessions: readonly Session[],
  linkOf: (childId: string) => AgentLink | null,
): SessionNode[] {
  const nodes = new Map(
    sessions.map((s) => [s.id, { session: s, detached: false, children: [] as SessionNode[] }]),
  );
  const roots: SessionNode[] = [];
  for (const s of sessions) {
    const node = nodes.get(s.id) as SessionNode;
    const parent = s.parentSessionId ? nodes.get(s.parentSessionId) : undefined;
    if (!parent) {
      roots.push(node);
      continue;
    }
    node.detached = (linkOf(s.id)?.detachedAt ?? null) !== null;
    parent.children.push(node);
  }
  for (const n of nodes.values()) n.children.sort((a, b) => Number(a.session.id) - Number(b.session.id));
  return roots;
}

/** The tree as indented lines, one per session, `line` rendering each. */
export function renderTree(roots: readonly SessionNode[], line: (node: SessionNode) => string): string[] {
  const out: string[] = [];
  const walk = (node: SessionNode, prefix: string, last: boolean, depth: number) => {
    const branch = depth === 0 ? "" : `${prefix}${last ? "└─ " : "├─ "}`;
    out.push(`${branch}${line(node)}`);
    const next = depth === 0 ? "" : `${prefix}${last ? "   " : "│  "}`;
    node.children.forEach((c, i) => {
      walk(c, next, i === node.children.length - 1, depth + 1);
    });
  };
  for (const r of roots) walk(r, "", true, 0);
  return out;
}
