import { type ErrorInfo, NbError } from "../core/errors.js";
import type { Harness } from "../harness/loop.js";
import type { SessionStore } from "../harness/store/index.js";
import type { ProfileCatalog } from "../profiles/catalog.js";
import {
  type Allowlist,
  approvalRequired,
  type DispatchContext,
  planCall,
  runPlanned,
} from "../tools/dispatch.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { ToolPorts, ToolSession } from "../tools/types.js";
import type { ToolPort } from "../workflows/host/tool-port.js";
import type { RunRecord } from "../workflows/store/index.js";
import type { Project } from "../workspace/project.js";
import type { Workspace } from "../workspace/workspace.js";
import { toolPorts } from "./ports.js";

/** What a workflow's tool calls run against: the run's workspace and project, tools and profiles. */
export interface WorkflowToolDeps {
  workspace: Workspace;
  project: Project | null;
  registry: ToolRegistry;
  catalog: ProfileCatalog;
  sessions: SessionStore;
  ports?: ToolPorts;
}

function thrown(info: ErrorInfo): NbError {
  return new NbError(info.code, info.message, {
    ...(info.fields ? { fields: info.fields } : {}),
    ...(info.details !== undefined ? { details: info.details } : {}),
  });
}

/** Who a run's calls run as: the agent session that started it (its allowlist), else the trusted user. */
function callerOf(
  deps: WorkflowToolDeps,
  run: RunRecord,
  callId: string,
): { profileKey: string | null; allow: Allowlist; session?: ToolSession } {
  if (!run.callerSessionId) return { profileKey: null, allow: "all" };
  const s = deps.sessions.session(run.callerSessionId);
  return {
    profileKey: s.profileKey,
    allow: deps.catalog.allowlist(s.profileKey),
    // No services: a workflow is not in the agent's turn, so tools that need one are refused first.
    session: { id: s.id, profileKey: s.profileKey, initial: s.initial, callId, services: {} },
  };
}

/**
 * Tool calls of workflow runs through the pipeline every door goes through (planCall, then
 * runPlanned): the caller's allowlist and bindings, the run's mode gate, the write reach, and the
 * history record with the call id `workflow:<runId>#<seq>`. A call the gate would ask the user
 * about is refused with `approval_required`: a workflow cannot approve its own writes.
 */
export function workflowToolPort(deps: WorkflowToolDeps): ToolPort {
  return {
    async call(run, seq, req, signal) {
      const tool = deps.registry.get(req.name);
      if (tool?.scope === "session")
        throw new NbError(
          "unsupported",
          `${req.name} needs an agent's own turn (its session's services); a workflow cannot call it`,
          { fields: [{ pointer: "/name", message: "a session-bound tool" }] },
        );
      const callId = `workflow:${run.id}#${seq}`;
      const caller = callerOf(deps, run, callId);
      const dctx: DispatchContext = {
        registry: deps.registry,
        workspace: deps.workspace,
        project: deps.project,
        mode: run.mode,
        profileKey: caller.profileKey,
        allow: caller.allow,
        approved: false,
        signal,
        ...(caller.session ? { session: caller.session } : { callId }),
        ...(deps.ports ? { ports: deps.ports } : {}),
      };
      const planned = await planCall({ key: req.name, input: req.input }, dctx);
      if (planned.kind === "refuse") throw thrown(planned.error);
      if (planned.kind === "ask") throw thrown(approvalRequired(planned, dctx));
      const r = await runPlanned(planned, dctx);
      if (!r.ok) throw thrown(r.error);
      return { text: r.text, details: r.details ?? null, truncated: r.truncated === true };
    },
  };
}

/** The tool port of runs driven on a harness: its tools, its profiles and its session store. */
export function harnessToolPort(harness: Harness, workspace: Workspace, project: Project | null): ToolPort {
  return workflowToolPort({
    workspace,
    project,
    registry: harness.registry,
    catalog: harness.catalog,
    sessions: harness.store,
    ports: toolPorts(),
  });
}
