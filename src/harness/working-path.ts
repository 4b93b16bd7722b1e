import { PAYLOAD_MARK, payloadOf } from "../collab/payload.js";
import type { Entry, SessionStore } from "./store/index.js";

/** Kinds whose latest entry on the path a run reads, wherever it is (see readPath, the loop's origin). */
const CARRIED = ["task_list", "mode_change", "assistant", "run_start", "user"] as const;

/**
 * The part of a session's active path a run works from: every entry from the latest compaction's
 * first kept entry to the leaf, preceded by the latest earlier entry of each kind whose latest a
 * run reads (`CARRIED`, and the user message that last carried an invocation payload). `readPath`
 * gives the same state of it as of the whole path, and it costs what the model sees, not the
 * session's length. Without a compaction it is the whole path.
 */
export function workingPath(store: SessionStore, sessionId: string): Entry[] {
  const compaction = store.latestOnPath(sessionId, "compaction");
  if (compaction?.kind !== "compaction") return store.activePath(sessionId);
  // The kept entries come before their compaction; an id that does not is read as none kept.
  const kept = compaction.data.firstKeptEntryId;
  const start = kept !== null && Number(kept) < Number(compaction.id) ? kept : compaction.id;
  const carried = new Map<string, Entry>();
  for (const kind of CARRIED) {
    const e = store.latestOnPath(sessionId, kind, { before: start });
    if (e) carried.set(e.id, e);
  }
  const payload = latestPayloadMessage(store, sessionId, start);
  if (payload) carried.set(payload.id, payload);
  // On a path, ids grow from the root to the leaf.
  const before = [...carried.values()].sort((a, b) => Number(a.id) - Number(b.id));
  return [...before, ...store.pathFrom(sessionId, start)];
}

/** The latest user message before `before` that carries a payload (as readPath takes it), or null. */
function latestPayloadMessage(store: SessionStore, sessionId: string, before: string): Entry | null {
  for (let at = before; ; ) {
    const e = store.latestOnPath(sessionId, "user", { before: at, contains: PAYLOAD_MARK });
    if (e?.kind !== "user") return null;
    if (e.data.intent !== "system" && payloadOf(e.data.text) !== null) return e;
    at = e.id;
  }
}
