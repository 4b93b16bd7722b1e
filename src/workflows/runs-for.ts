import { AgentCollaboration } from "../collab/service.js";
import type { Mode } from "../core/modes.js";
import type { Harness } from "../harness/loop.js";
import type { Project } from "../workspace/project.js";
import type { Workspace } from "../workspace/workspace.js";
import { WorkflowHost } from "./host/activities.js";
import { collaborationPort, userPort } from "./host/agent-port.js";
import type { ToolPort } from "./host/tool-port.js";
import { WorkflowRuns } from "./service.js";
import type { RunRecord, WorkflowStore } from "./store/index.js";

/** What driving a run outside the agent that started it takes (the CLI, the web server). */
export interface RunsForOptions {
  harness: Harness;
  workspace: Workspace;
  project: Project | null;
  store: WorkflowStore;
  /** How the run's `wf.tools.call` reaches the tools (see src/runtime/workflow-tools.ts). */
  tools: ToolPort;
  /** The run to drive (its caller owns its agents), or null for a new run of the user's. */
  run: Pick<RunRecord, "callerSessionId" | "mode" | "id"> | null;
  /** The mode of a user's new run (default normal). */
  mode?: Mode;
  onUpdate?: (run: RunRecord) => void;
}

/**
 * Workflow runs whose agents belong to the run's caller — children of the agent that started it,
 * under its ownership and mode ceiling — or, for a user's own run, to the user.
 */
export function runsFor(o: RunsForOptions): WorkflowRuns {
  const { harness: h, run } = o;
  const port = run?.callerSessionId
    ? collaborationPort(
        new AgentCollaboration(h, run.callerSessionId, `workflow:${run.id}`, run.mode),
        h.store,
      )
    : userPort(h, o.project?.name ?? null, run?.mode ?? o.mode ?? "normal");
  const host = new WorkflowHost({
    workspace: o.workspace,
    project: o.project,
    store: o.store,
    port,
    tools: o.tools,
  });
  return new WorkflowRuns({
    workspace: o.workspace,
    project: o.project,
    store: o.store,
    host,
    ...(o.onUpdate ? { onUpdate: o.onUpdate } : {}),
  });
}
