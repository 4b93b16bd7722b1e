import { NbError } from "../core/errors.js";
import { capMode, type Mode } from "../core/modes.js";
import type { Harness } from "../harness/loop.js";
import type { Session } from "../harness/store/index.js";
import type { RunResult } from "../harness/types.js";
import { describeProfile } from "../profiles/describe.js";
import type {
  AgentInvocationResult,
  AgentSummary,
  CollaborationService,
  CreatedAgent,
  DetachOutcome,
  InvokeAgentRequest,
  ProfileDescription,
  SessionRequest,
  SessionView,
} from "../tools/collaboration/service.js";
import { admit, type TargetState } from "./admission.js";
import { ancestors, assertAccess, MAX_AGENT_DEPTH } from "./ownership.js";
import { invocationPayload, invocationText, parseStrict } from "./payload.js";
import { invocationResult } from "./result.js";
import { agentSummary, sessionView } from "./views.js";

/** Live links one session may hold at once (detach one to create another). */
export const MAX_LINKED_AGENTS = 32;

/** What a background invocation's job reports: the agent's answer, or what it waits on. */
function backgroundText(r: AgentInvocationResult): string {
  if (r.status === "waiting") {
    return `Agent ${r.sessionId} stopped for the user (${r.pending?.kind ?? "approval"} ${r.approvalId}, ${r.pending?.tool ?? "a call"}). The user settles it (nbook approve ${r.sessionId} ${r.approvalId}); its result then comes back to you as another message.`;
  }
  const data = r.data === null ? "" : `\n\nData:\n${JSON.stringify(r.data, null, 2)}`;
  return `Agent ${r.sessionId} returned (${r.status}):\n\n${r.finalMessage || "(no message)"}${data}`;
}

/**
 * The collaboration tools' service for one call of one agent session: the ownership policy, the
 * admission matrix, strict schemas and the mode ceiling, over the harness.
 */
export class AgentCollaboration implements CollaborationService {
  constructor(
    private readonly harness: Harness,
    private readonly callerId: string,
    private readonly callId: string,
    /** The mode the calling step runs in: the ceiling of every invocation it makes. */
    private readonly mode: Mode,
  ) {}

  profile(profileKey: string): ProfileDescription {
    return describeProfile(this.harness.catalog.get(profileKey));
  }

  create(req: { profileKey: string; initial: Record<string, unknown>; title?: string }): CreatedAgent {
    const { store, catalog } = this.harness;
    const profile = catalog.get(req.profileKey);
    if (profile.creation === "system_only") {
      throw new NbError(
        "not_allowed",
        `Profile ${profile.key} is internal (system_only): only NeuroBook itself starts it, never create_agent`,
      );
    }
    if (ancestors(store, this.callerId).length + 1 >= MAX_AGENT_DEPTH) {
      throw new NbError(
        "limit_exceeded",
        `Agents nest at most ${MAX_AGENT_DEPTH} deep; do this work yourself`,
      );
    }
    if (store.childLinks(this.callerId).length >= MAX_LINKED_AGENTS) {
      throw new NbError(
        "limit_exceeded",
        `You hold ${MAX_LINKED_AGENTS} agents already; reuse one (get_agent) or detach one you no longer need`,
      );
    }
    const initial = parseStrict(profile.initial, req.initial, `initial for profile ${profile.key}`);
    const caller = store.session(this.callerId);
    const child = this.harness.createSession({
      profileKey: profile.key,
      project: caller.project,
      initial,
      parentSessionId: this.callerId,
      ...(req.title ? { title: req.title } : {}),
    });
    return { sessionId: child.id, profileKey: child.profileKey, title: child.title, mode: child.mode };
  }

  async invoke(req: InvokeAgentRequest, signal?: AbortSignal): Promise<AgentInvocationResult> {
    const { store, catalog } = this.harness;
    if (req.sessionId === this.callerId) {
      throw new NbError("not_allowed", "An agent cannot invoke its own session");
    }
    assertAccess(store, this.callerId, req.sessionId, "invoke");
    const target = store.session(req.sessionId);
    if (target.status === "archived") throw new NbError("conflict", `Session ${target.id} is archived`);
    if (req.model !== undefined && !this.harness.visibleModels().includes(req.model)) {
      const visible = this.harness.visibleModels();
      throw new NbError(
        "not_allowed",
        `Model ${req.model} is not visible to agents; ${visible.length ? `use one of: ${visible.join(", ")}` : "no model is (leave model out)"}`,
        { fields: [{ pointer: "/model", message: "not a model visible to agents" }] },
      );
    }
    const mode = req.mode ?? (req.message !== undefined || req.input !== undefined ? "prompt" : "continue");
    const state = this.stateOf(target);
    const admission = admit(state, {
      mode,
      hasMessage: req.message !== undefined,
      hasInput: req.input !== undefined,
      hasModel: req.model !== undefined,
    });
    if (admission.action === "queue" && capMode(target.mode, this.mode) !== target.mode) {
      // Queued input runs under the active invocation's mode, which may be more permissive than ours.
      throw new NbError(
        "conflict",
        `active_invocation_exists: session ${target.id} is running in ${target.mode} mode, more permissive than your ${this.mode} mode, so your input cannot join it; invoke it again once it is idle`,
        { details: { reason: "active_invocation_exists" } },
      );
    }
    const payload =
      req.input === undefined ? undefined : invocationPayload(catalog.get(target.profileKey), req.input);
    if (req.background && admission.action !== "run") {
      throw new NbError(
        "conflict",
        `active_invocation_exists: session ${target.id} is running; a background invocation needs an idle agent`,
        { details: { reason: "active_invocation_exists" } },
      );
    }
    if (req.title) store.updateSession(target.id, { title: req.title });
    const message = invocationText(req.message, payload);
    const run = (runSignal: AbortSignal | undefined) =>
      this.harness.invoke(target.id, {
        mode,
        message,
        ...(req.model ? { model: req.model } : {}),
        signal: runSignal,
        ceiling: this.mode,
        caller: { sessionId: this.callerId, callId: this.callId },
      });
    if (req.background) return this.startBackground(target, req.message, run);
    const started = performance.now();
    const result = await run(signal);
    return invocationResult(result, Math.round(performance.now() - started));
  }

  /**
   * Run the invocation as a job of the calling session: the result flows back to it as a system
   * follow-up. A child that stops for the user ends the job saying so; its result flows back once
   * the user has settled it (as after a foreground `waiting`).
   */
  private startBackground(
    target: Session,
    message: string | undefined,
    run: (signal: AbortSignal) => Promise<RunResult>,
  ): AgentInvocationResult {
    const about = message ? `: ${message.replace(/\s+/g, " ").slice(0, 40)}` : "";
    const job = this.harness.jobs.start({
      kind: "invoke_agent",
      title: `invoke agent #${target.id} (${target.profileKey})${about}`,
      ownerSessionId: this.callerId,
      originCallId: this.callId,
      ref: { sessionId: target.id },
      run: async (ctx) => {
        const started = performance.now();
        const r = invocationResult(await run(ctx.signal), Math.round(performance.now() - started));
        if (r.status === "error" || r.status === "step_limit" || r.status === "budget_limit") {
          throw new NbError(
            r.error?.code === "limit_exceeded" ? "limit_exceeded" : "internal",
            `Agent ${target.id} stopped (${r.status}): ${r.error?.message ?? r.finalMessage}`,
          );
        }
        return { text: backgroundText(r), data: r };
      },
    });
    return { status: "started", sessionId: target.id, finalMessage: "", data: null, jobId: job.id };
  }

  agents(): AgentSummary[] {
    return this.harness.store
      .childLinks(this.callerId)
      .map((l) => agentSummary(this.harness, l.childSessionId));
  }

  agent(sessionId: string): AgentSummary {
    assertAccess(this.harness.store, this.callerId, sessionId, "get");
    return agentSummary(this.harness, sessionId);
  }

  session(req: SessionRequest): SessionView {
    const id = req.sessionId ?? this.callerId;
    assertAccess(this.harness.store, this.callerId, id, "read");
    return sessionView(this.harness, id, req);
  }

  detach(sessionId: string): DetachOutcome {
    const { store } = this.harness;
    const link = sessionId === this.callerId ? null : store.linkOf(sessionId);
    if (link && link.parentSessionId === this.callerId && link.detachedAt !== null) {
      return { sessionId, status: "already_detached" };
    }
    const relation = assertAccess(store, this.callerId, sessionId, "detach");
    if (relation !== "descendant") {
      throw new NbError(
        "not_allowed",
        `Session ${sessionId} is not an agent you created; only those can be detached`,
      );
    }
    store.detachLink(sessionId);
    return { sessionId, status: "detached" };
  }

  /** The target's state: running (here, or in another live process), waiting on the user, or idle. */
  private stateOf(session: Session): TargetState {
    if (this.harness.isRunning(session.id) || this.harness.store.liveRunner(session.id)) return "running";
    return this.harness.pending(session.id) ? "waiting" : "idle";
  }
}
