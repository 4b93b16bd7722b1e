import { invocationPayload, invocationText } from "../../collab/payload.js";
import { invocationResult } from "../../collab/result.js";
import { NbError } from "../../core/errors.js";
import type { Mode } from "../../core/modes.js";
import type { Harness } from "../../harness/loop.js";
import type { SessionStore } from "../../harness/store/index.js";
import type {
  AgentInvocationResult,
  CollaborationService,
  InvokeAgentRequest,
} from "../../tools/collaboration/service.js";

/** How a workflow reaches agent sessions: create, invoke, read, archive. */
export interface AgentPort {
  create(req: { profileKey: string; initial: Record<string, unknown>; title?: string }): {
    sessionId: string;
    profileKey: string;
    title: string;
  };
  invoke(req: InvokeAgentRequest, signal: AbortSignal): Promise<AgentInvocationResult>;
  /** Refuses (not_allowed) a session the run may not reach. */
  assertReachable(sessionId: string): void;
  /** An ephemeral participant's run is over: unlink it from its parent (if any) and archive it. */
  release(sessionId: string): void;
  store: SessionStore;
}

/**
 * Agents as the calling session's children, through the collaboration service: its ownership
 * policy, strict initial/payload schemas, visible models, admission matrix and mode ceiling.
 */
export function collaborationPort(collab: CollaborationService, store: SessionStore): AgentPort {
  return {
    store,
    create: (req) => collab.create(req),
    invoke: (req, signal) => collab.invoke(req, signal),
    assertReachable: (sessionId) => {
      collab.agent(sessionId);
    },
    release: (sessionId) => {
      collab.detach(sessionId);
      store.updateSession(sessionId, { status: "archived" });
    },
  };
}

/**
 * Agents for a run the user started (no calling session): root sessions of the run's project in
 * the run's mode, invoked through the harness with that mode as their ceiling and the harness's
 * visible models as the only models a script may name.
 */
export function userPort(harness: Harness, project: string | null, runMode: Mode): AgentPort {
  return {
    store: harness.store,
    create: (req) => {
      const s = harness.createSession({
        profileKey: req.profileKey,
        project,
        initial: req.initial,
        title: req.title,
        mode: runMode,
      });
      return { sessionId: s.id, profileKey: s.profileKey, title: s.title };
    },
    invoke: async (req, signal) => {
      if (req.model !== undefined && !harness.visibleModels().includes(req.model))
        throw new NbError("not_allowed", `Model ${req.model} is not visible to agents`, {
          fields: [{ pointer: "/model", message: "not a model visible to agents" }],
        });
      // The payload is validated and carried as the collaboration service does: tools bound to it
      // (the writer's target file) read it from the message.
      const profile = harness.catalog.get(harness.store.session(req.sessionId).profileKey);
      const message = invocationText(req.message, invocationPayload(profile, req.input));
      const mode = req.mode ?? (message !== undefined ? "prompt" : "continue");
      const started = performance.now();
      const r = await harness.invoke(req.sessionId, {
        mode,
        ...(message !== undefined ? { message } : {}),
        ...(req.model ? { model: req.model } : {}),
        signal,
        ceiling: runMode,
      });
      return invocationResult(r, Math.round(performance.now() - started));
    },
    assertReachable: (sessionId) => {
      const s = harness.store.session(sessionId);
      if (s.project !== project)
        throw new NbError("not_allowed", `Session ${sessionId} is not in this run's project`);
    },
    release: (sessionId) => {
      harness.store.updateSession(sessionId, { status: "archived" });
    },
  };
}
