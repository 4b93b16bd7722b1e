import { existsSync } from "node:fs";
import type { Workspace } from "../workspace/workspace.js";
import { ownerAlive } from "./owner.js";
import { WorkflowStore, workflowsDbPath } from "./store/index.js";

/**
 * Lines telling the user about workflow runs that need them: runs whose process died (resume them)
 * and runs waiting for answers. Nothing (and no file created) when the workspace never ran one.
 */
export function workflowNotices(workspace: Pick<Workspace, "nbookDir">): string[] {
  if (!existsSync(workflowsDbPath(workspace))) return [];
  const store = WorkflowStore.forWorkspace(workspace);
  try {
    const lines: string[] = [];
    for (const run of store.listRuns({ status: ["running", "waiting"], limit: 20 })) {
      if (run.status === "waiting")
        lines.push(
          `Workflow ${run.workflowKey} (run ${run.id}) waits for answers: nbook workflows show ${run.id}, then nbook workflows answer ${run.id} --answers '{…}'`,
        );
      else if (!run.owner || !ownerAlive(run.owner, run.id))
        lines.push(
          `Workflow ${run.workflowKey} (run ${run.id}) was interrupted when its process ended: nbook workflows resume ${run.id} continues it from its journal`,
        );
    }
    return lines;
  } finally {
    store.close();
  }
}
