import { createHash } from "node:crypto";
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { isTempName } from "../../core/atomic-write.js";
import { NbError } from "../../core/errors.js";
import type { ResolvedPath } from "../../workspace/paths.js";
import { readFileSafe } from "../../workspace/safe-read.js";
import type { ToolContext } from "../types.js";
import { authorize } from "./common.js";

/** Files one move or delete takes at most: a folder of more is no chapter or lorebook entry. */
export const MAX_SET_FILES = 5000;
/** The largest file moved (it is read whole to be written at its new place). */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** One file of a set, as it is now: its bytes' sha256 (the basis the run checks) and its bytes. */
export interface SetFile {
  /** Path inside the folder (the file's own name when the set is one file). */
  sub: string;
  r: ResolvedPath;
  sha256: string;
  bytes: Buffer;
}

/** What a move or delete takes: a file, or a folder with every file under it and its folders. */
export interface FileSet {
  root: ResolvedPath;
  folder: boolean;
  files: SetFile[];
  /** Folders under the root (the root last), deepest first: the order they are emptied in. */
  folders: string[];
}

export const sha256Of = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/**
 * The files at `path` (a file, or a folder of the current project and all under it), read through
 * the safe read. Links and special files are refused: a move would have to follow them, and a
 * delete of a folder holding one could not be taken back by the history (it keeps files only).
 */
export async function fileSetOf(ctx: ToolContext, path: string, role: string): Promise<FileSet> {
  const root = authorize(ctx, path, "write");
  if (!ctx.project || root.project.name !== ctx.project.name)
    throw new NbError("invalid_input", `${root.display} is not in this project`, {
      fields: [{ pointer: `/${role}`, message: "must be a path of this project" }],
    });
  const st = await lstat(root.abs).catch(() => null);
  if (!st) throw new NbError("not_found", `Not found: ${root.display}`);
  const set: FileSet = { root, folder: st.isDirectory(), files: [], folders: [] };
  if (!set.folder) {
    set.files.push(await readOne(ctx, root, root.rel.split("/").at(-1)!));
    return set;
  }
  await walk(ctx, set, "");
  set.folders.push("");
  return set;
}

async function walk(ctx: ToolContext, set: FileSet, sub: string): Promise<void> {
  const abs = sub ? join(set.root.abs, sub) : set.root.abs;
  for (const e of await readdir(abs, { withFileTypes: true })) {
    const child = sub ? `${sub}/${e.name}` : e.name;
    if (e.isDirectory()) {
      await walk(ctx, set, child);
      set.folders.push(child);
    } else if (!isTempName(e.name)) {
      if (set.files.length >= MAX_SET_FILES)
        throw new NbError("invalid_input", `${set.root.display} holds more than ${MAX_SET_FILES} files`);
      set.files.push(await readOne(ctx, authorize(ctx, `${set.root.rel}/${child}`, "write"), child));
    }
  }
}

async function readOne(ctx: ToolContext, r: ResolvedPath, sub: string): Promise<SetFile> {
  const st = await lstat(r.abs);
  if (!st.isFile())
    throw new NbError(
      "unsupported",
      `${r.display} is ${st.isSymbolicLink() ? "a symbolic link" : "not a regular file"}; only files and folders of files can be moved or deleted here`,
    );
  const bytes = await readFileSafe(r.abs, {
    label: r.display,
    root: ctx.project!.realRoot,
    maxBytes: MAX_FILE_BYTES,
  });
  if (bytes === null) throw new NbError("not_found", `Not found: ${r.display}`);
  return { sub, r, sha256: sha256Of(bytes), bytes };
}

/** Refuse the run when a file of the set changed since it was planned: nothing is written then. */
export async function checkUnchanged(ctx: ToolContext, set: FileSet, tool: string): Promise<void> {
  for (const f of set.files) {
    const now = await readFileSafe(f.r.abs, {
      label: f.r.display,
      root: ctx.project!.realRoot,
      maxBytes: MAX_FILE_BYTES,
    }).catch(() => null);
    if (now === null || sha256Of(now) !== f.sha256)
      throw new NbError(
        "conflict",
        `${f.r.display} changed while the ${tool} was prepared; nothing was changed`,
      );
  }
}
