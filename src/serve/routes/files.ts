import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { countWords } from "../../core/text.js";
import { dispatch } from "../../tools/dispatch.js";
import { authorize, contentHash, readText, readTextOrNull } from "../../tools/files/common.js";
import { readTool } from "../../tools/files/read.js";
import { writeTool } from "../../tools/files/write.js";
import { ToolRegistry } from "../../tools/registry.js";
import type { ToolContext } from "../../tools/types.js";
import type { Project } from "../../workspace/project.js";
import { readTextSafe } from "../../workspace/safe-read.js";
import type { ApiRoutes } from "../api.js";
import { HttpError } from "../errors.js";
import type { ServeHub } from "../hub.js";
import { FileTextSchema, FileTreeSchema, FileWrittenSchema } from "../responses.js";
import { ProjectParams } from "./common.js";

/** Largest file write body: the tools' own inputs are text, a novel's chapter fits many times. */
const MAX_WRITE_BODY = 8 * 1024 * 1024;

/** Entries listed in one tree at most; a bigger project is cut off (`truncated`). */
const TREE_LIMIT = 5000;
/** Markdown files larger than this get no word count (it would mean reading them all). */
const WORD_COUNT_MAX_BYTES = 1024 * 1024;
/** Folders never listed: the control area (databases, agent config) and VCS data. */
const HIDDEN = new Set([".nbook", ".git", "node_modules"]);

/** A file's version: the sha256 of its text (the same hash a tool's approval basis records). */
const Version = z.string().regex(/^[0-9a-f]{64}$/, "expected a version as read (sha256 hex)");

/** A node of the file tree. */
interface TreeNode {
  name: string;
  path: string;
  kind: "dir" | "file" | "link";
  size?: number;
  words?: number;
  children?: TreeNode[];
}

/** The project's files as a tree (folders first), without `.nbook/`; symbolic links are not followed. */
async function fileTree(project: Project): Promise<{ tree: TreeNode; truncated: boolean }> {
  let count = 0;
  let truncated = false;
  const walk = async (abs: string, rel: string, name: string): Promise<TreeNode> => {
    const node: TreeNode = { name, path: rel || ".", kind: "dir", children: [] };
    let entries: Dirent[];
    try {
      entries = await readdir(abs, { withFileTypes: true });
    } catch {
      return node;
    }
    entries.sort((a, b) =>
      a.isDirectory() !== b.isDirectory() ? (a.isDirectory() ? -1 : 1) : a.name.localeCompare(b.name),
    );
    for (const e of entries) {
      if (HIDDEN.has(e.name) || /^\..*\.tmp$/.test(e.name)) continue;
      if (++count > TREE_LIMIT) {
        truncated = true;
        break;
      }
      const childRel = rel ? `${rel}/${e.name}` : e.name;
      const childAbs = join(abs, e.name);
      if (e.isDirectory()) node.children?.push(await walk(childAbs, childRel, e.name));
      else if (e.isSymbolicLink()) node.children?.push({ name: e.name, path: childRel, kind: "link" });
      else if (e.isFile()) node.children?.push(await fileNode(childAbs, childRel, e.name, project.realRoot));
    }
    return node;
  };
  const tree = await walk(project.root, "", project.name);
  return { tree, truncated };
}

async function fileNode(abs: string, rel: string, name: string, root: string): Promise<TreeNode> {
  const st = await stat(abs).catch(() => null);
  const node: TreeNode = { name, path: rel, kind: "file", size: st?.size ?? 0 };
  if (st && /\.md$/i.test(name) && st.size <= WORD_COUNT_MAX_BYTES) {
    // Through the safe read: a file swapped for a FIFO since the listing must not hold a thread.
    const text = await readTextSafe(abs, { label: rel, root, maxBytes: WORD_COUNT_MAX_BYTES }).catch(
      () => null,
    );
    node.words = countWords(text ?? "");
  }
  return node;
}

/** The context the file tools' authorisation runs in for the trusted user of the workbench. */
function userContext(hub: ServeHub, project: Project): ToolContext {
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
      summary: "The project's files and folders (without .nbook/), with word counts for Markdown",
      params: ProjectParams,
    },
    async (c, { params }) => c.json(await fileTree(hub.workspace.project(params.project))),
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
        hub.events.publish("files_changed", {
          project: r.project.name,
          sessionId: null,
          tool: "write",
          paths: [r.rel],
        });
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
