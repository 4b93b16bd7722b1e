import type { PendingView } from "../harness/events.js";
import type { Harness } from "../harness/loop.js";
import type { Session } from "../harness/store/index.js";
import { MAX_AGENT_DEPTH } from "./ownership.js";

/** An agent created (directly or not) by a session, waiting on the user. */
export interface WaitingAgent {
  session: Session;
  pending: PendingView;
}

/**
 * The agents a session created that wait on the user (an approval or a question), nearest first:
 * what `nbook chat` asks about after a turn, since the calling agent only got `waiting` back.
 */
export function waitingAgents(harness: Harness, sessionId: string): WaitingAgent[] {
  const out: WaitingAgent[] = [];
  let level = [sessionId];
  for (let depth = 0; depth < MAX_AGENT_DEPTH && level.length; depth++) {
    const next: string[] = [];
    for (const id of level) {
      for (const link of harness.store.childLinks(id)) {
        const pending = harness.pending(link.childSessionId);
        if (pending) out.push({ session: harness.store.session(link.childSessionId), pending });
        next.push(link.childSessionId);
      }
    }
    level = next;
  }
  return out;
}
