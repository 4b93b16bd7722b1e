import type { ToolPorts } from "../tools/types.js";

/**
 * What the runtime lends the tools at every door: the memory curator's harness and workflow runs.
 * Both are loaded on first use, so a door that never needs them (`nbook tool read`) loads neither
 * the harness nor the workflow engine.
 */
export function toolPorts(): ToolPorts {
  return {
    // A harness of its own on the workspace's session store, with the models the config gives
    // `memory.curator` (`profiles["memory.curator"].model`, else `defaultModel`).
    curator: async (ctx) => {
      const { openHarness } = await import("./open.js");
      const harness = openHarness({ workspace: ctx.workspace, project: ctx.project });
      return { harness, close: () => harness.close() };
    },
    workflowRuns: async (ctx, collab) => {
      const [
        { SessionStore },
        { WorkflowHost },
        { collaborationPort },
        { WorkflowRuns },
        { WorkflowStore },
        { createToolRegistry },
        { ProfileCatalog },
        { workflowToolPort },
      ] = await Promise.all([
        import("../harness/store/index.js"),
        import("../workflows/host/activities.js"),
        import("../workflows/host/agent-port.js"),
        import("../workflows/service.js"),
        import("../workflows/store/index.js"),
        import("../tools/builtin.js"),
        import("../profiles/catalog.js"),
        import("./workflow-tools.js"),
      ]);
      const sessions = SessionStore.forWorkspace(ctx.workspace);
      const store = WorkflowStore.forWorkspace(ctx.workspace);
      // The run's wf.tools.call runs as its caller: that agent's profile, from the same catalog.
      const registry = createToolRegistry();
      const catalog = new ProfileCatalog(registry, ctx.workspace, ctx.project);
      const host = new WorkflowHost({
        workspace: ctx.workspace,
        project: ctx.project,
        store,
        port: collaborationPort(collab, sessions),
        tools: workflowToolPort({
          workspace: ctx.workspace,
          project: ctx.project,
          registry,
          catalog,
          sessions,
          ports: toolPorts(),
        }),
      });
      return {
        runs: new WorkflowRuns({ workspace: ctx.workspace, project: ctx.project, store, host }),
        close: () => {
          store.close();
          sessions.close();
        },
      };
    },
  };
}
