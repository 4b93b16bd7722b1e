import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { dispatch } from "../../tools/dispatch.js";
import { authorize, contentHash, readText, readTextOrNull } from "../../tools/files/common.js";
import { readTool } from "../../tools/files/read.js";
import { writeTool } from "../../tools/files/write.js";
import { ToolRegistry } from "../../tools/registry.js";
import type { ToolContext } from "../../tools/types.js";
import type { Project } from "../../workspace/project.js";
import type { ApiRoutes } from "../api.js";
import { HttpError } from "../errors.js";
import type { ServeHub } from "../hub.js";
import { FileTextSchema, FileTreeSchema, FileWrittenSchema } from "../responses.js";
import { ProjectParams } from "./common.js";

/** Largest file write body: the tools' own inputs are text, a novel's chapter fits many times. */
const MAX_WRITE_BODY = 8 * 1024 * 1024;

/** A file's version: the sha256 of its text (the same hash a tool's approval basis records). */
const Version = z.string().regex(/^[0-9a-f]{64}$/, "expected a version as read (sha256 hex)");

const TreeQuery = z
  .object({
    path: z
      .string()
      .min(1)
      .optional()
      .describe("a folder to list (one the tree returned `lazy`); default: the whole project"),
  })
  .strict();

/** The context the file tools' authorisation runs in for the trusted user of the workbench. */
export function userContext(hub: ServeHub, project: Project): ToolContext {
  return {
    workspace: hub.workspace,
    project,
    mode: "normal",
    profileKey: null,
    binding: {},
    worldFiles: "readwrite",
  };
}

const ReadQuery = readTool.input.pick({ path: true });
const WriteBody = writeTool.input.extend({
  baseVersion: Version.nullable().describe("the version the edit started from; null for a new file"),
});

/** Files: the tree, reading a file with its version, and writing against the version it was based on. */
export function registerFileRoutes(routes: ApiRoutes, hub: ServeHub): void {
  const registry = new ToolRegistry([writeTool]);

  routes.add(
    {
      method: "get",
      path: "/api/projects/:project/files/tree",
      tag: "files",
      response: FileTreeSchema,
      summary:
        "The project's files and folders (without .nbook/), with word counts for Markdown; folders past the answer's budget come back lazy (ask again with ?path=)",
      params: ProjectParams,
      query: TreeQuery,
    },
    async (c, { params, query }) => c.json(hub.projectFiles(params.project).tree.tree(query.path ?? "")),
  );

  routes.add(
    {
      method: "get",
      path: "/api/projects/:project/files/read",
      tag: "files",
      response: FileTextSchema,
      summary: "A text file and its version, authorised exactly as the read tool",
      params: ProjectParams,
      query: ReadQuery,
    },
    async (c, { params, query }) => {
      const project = hub.workspace.project(params.project);
      const r = authorize(userContext(hub, project), query.path, "read");
      const text = await readText(r);
      return c.json({ path: r.display, text, version: contentHash(text) });
    },
  );

  routes.add(
    {
      method: "put",
      path: "/api/projects/:project/files/write",
      tag: "files",
      response: FileWrittenSchema,
      summary:
        "Write a file through the write tool (same authorisation, atomic write); 409 conflict with both texts when it changed since baseVersion",
      params: ProjectParams,
      body: WriteBody,
      maxBody: MAX_WRITE_BODY,
    },
    async (c, { params, body }) => {
      const project = hub.workspace.project(params.project);
      const ctx = userContext(hub, project);
      const r = authorize(ctx, body.path, "write");
      // The version the edit started from is the write's approval basis: the tool itself refuses
      // (conflict) when the file is no longer that version, and writes atomically when it is.
      let written: string | null = null;
      const result = await dispatch(
        { key: "write", input: { path: body.path, content: body.content } },
        {
          registry,
          workspace: hub.workspace,
          project,
          mode: "normal",
          profileKey: null,
          allow: "all",
          approved: true,
          approvedBasis: { files: [{ path: r.display, sha256: body.baseVersion }] },
          // The version is what was written, not what a read by name finds afterwards.
          onChange: (record) => {
            written = record.files?.find((f) => f.path === r.display)?.after ?? null;
          },
        },
      );
      if (!result.ok) {
        if (result.error.code !== "conflict")
          throw new NbError(result.error.code, result.error.message, result.error);
        const theirs = await readTextOrNull(r);
        throw new HttpError(
          409,
          "conflict",
          `${r.display} changed since version ${body.baseVersion ?? "(new file)"}; nothing was written`,
          {
            details: { path: r.display, version: contentHash(theirs), theirs, yours: body.content },
          },
        );
      }
      const details = result.details as { created: boolean; unchanged?: boolean };
      const version = written ?? contentHash(await readTextOrNull(r));
      if (version === null) {
        throw new HttpError(409, "conflict", `${r.display} was removed while it was saved; save it again`, {
          details: { path: r.display },
        });
      }
      if (!details.unchanged) {
        hub.publishFilesChanged(r.project.name, null, "write", [r.rel]);
      }
      return c.json({
        path: r.display,
        version,
        created: details.created,
        unchanged: details.unchanged === true,
      });
    },
  );
}
