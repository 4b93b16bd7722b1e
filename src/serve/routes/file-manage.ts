import { NbError } from "../../core/errors.js";
import { dispatch } from "../../tools/dispatch.js";
import { deleteTool } from "../../tools/files/delete.js";
import { moveTool } from "../../tools/files/move.js";
import type { ChangeRecord } from "../../tools/pipeline/record.js";
import { ToolRegistry } from "../../tools/registry.js";
import type { ApiRoutes } from "../api.js";
import type { ServeHub } from "../hub.js";
import { FilesChangedSchema } from "../responses.js";
import { ProjectParams } from "./common.js";

/**
 * Rename, move and delete from the files screen: through the pipeline like every write (the user's
 * own call, approved by the confirmation the workbench asked for), so each is one history change.
 */
export function registerFileManageRoutes(routes: ApiRoutes, hub: ServeHub): void {
  const registry = new ToolRegistry([moveTool, deleteTool]);

  const run = async (project: string, key: string, input: unknown) => {
    let record: ChangeRecord | null = null;
    const result = await dispatch(
      { key, input },
      {
        registry,
        workspace: hub.workspace,
        project: hub.workspace.project(project),
        mode: "normal",
        profileKey: null,
        allow: "all",
        approved: true,
        onChange: (r) => {
          record = r;
        },
      },
    );
    if (!result.ok) throw new NbError(result.error.code, result.error.message, result.error);
    const done = record as ChangeRecord | null;
    const paths = done?.targets ?? [];
    if (paths.length) hub.publishFilesChanged(project, null, key, paths);
    return { summary: result.text, change: done?.id ?? null, paths };
  };

  routes.add(
    {
      method: "post",
      path: "/api/projects/:project/files/move",
      tag: "files",
      response: FilesChangedSchema,
      summary:
        "Move or rename a file or folder (the new path must be free) as one history change, through the move tool",
      params: ProjectParams,
      body: moveTool.input,
    },
    async (c, { params, body }) => c.json(await run(params.project, "move", body)),
  );

  routes.add(
    {
      method: "post",
      path: "/api/projects/:project/files/delete",
      tag: "files",
      response: FilesChangedSchema,
      summary: "Delete a file or a folder of files as one history change (a revert brings them back)",
      params: ProjectParams,
      body: deleteTool.input,
    },
    async (c, { params, body }) => c.json(await run(params.project, "delete", body)),
  );
}
