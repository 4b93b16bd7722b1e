import { constants, type Dirent } from "node:fs";
import {
  type FileHandle,
  lstat,
  mkdir,
  open,
  readdir,
  readlink,
  rename,
  rm,
  rmdir,
  stat,
  unlink,
} from "node:fs/promises";
import { isTempName, PERMISSION_BITS, tempNameFor, writeFileAtomic } from "../core/atomic-write.js";
import { NbError } from "../core/errors.js";
import { controlAreaOf, isInside, type ResolvedPath, realPathOf } from "./paths.js";

/**
 * Project files reached through opened, checked folders. A path authorised by name can change
 * before it is used (an agent's background job flips a folder to a link out of the project), so a
 * write's parent folder is opened one segment at a time from the project root, each opened folder's
 * real path is read from its descriptor and checked, and the temp file, the rename and the unlink
 * are named relative to the final descriptor (`/proc/self/fd/<fd>/<name>`, which the kernel
 * resolves from the open folder, not from the path again). A folder listed is checked the same way.
 * Where the system cannot say where a descriptor is (no /proc/self/fd: macOS), the checks are made
 * by name just before the write: that narrows the window, it does not close it.
 */

/** Where a write must land besides the project: a real folder the target's folder must be inside. */
export interface WriteScope {
  /** For a plan-mode write under the exemption: the project's real `.agent/plan/`. */
  within?: string;
}

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY;
const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
// Non-blocking so a FIFO put in its place is refused at once (ENXIO) rather than waited on.
const APPEND_FLAGS =
  constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;
/** A temp file this old is a killed writer's leftover, not a concurrent writer's live one. */
const STALE_TEMP_MS = 60_000;
/** Attempts to open a folder that keeps vanishing between its mkdir and its open. */
const OPEN_ATTEMPTS = 3;

/**
 * Where an opened folder is: the kernel's name for it, read from /proc/self/fd (already free of
 * links, so it is not resolved again by name). Null where there is no /proc/self/fd; `gone` for a
 * folder removed while open.
 */
async function whereIs(folder: FileHandle): Promise<string | null> {
  const where = await readlink(`/proc/self/fd/${folder.fd}`).catch(() => null);
  if (where === null) return null;
  return where.startsWith("/") && !where.endsWith(" (deleted)") ? where : GONE;
}

/** What whereIs says of a folder that is no longer anywhere (never a real path: it is not absolute). */
const GONE = "(gone)";

/** A name inside an opened folder, resolved from its descriptor. */
function at(folder: FileHandle, name: string): string {
  return `/proc/self/fd/${folder.fd}/${name}`;
}

function escaped(r: ResolvedPath, why: string): NbError {
  return new NbError("path_escape", `${r.display} ${why}; nothing was written`);
}

function removedWhileWritten(r: ResolvedPath): NbError {
  return new NbError(
    "conflict",
    `${r.display}: its folder was removed while it was written; nothing was written`,
  );
}

/** The folder the target is in, opened and checked. */
interface Parent {
  folder: FileHandle;
  name: string;
}

/**
 * Open the target's folder from the project root, creating missing folders when `create`. Every
 * folder on the way must really be inside the project; one is created only where the control
 * area is not, and the final one must be outside it (and inside `scope.within`). Null when a
 * folder is missing and not created; `anchored: false` when descriptors cannot be located.
 */
async function openParent(
  r: ResolvedPath,
  create: boolean,
  scope: WriteScope,
): Promise<{ anchored: true; parent: Parent | null } | { anchored: false }> {
  const { realRoot } = r.project;
  const control = controlAreaOf(r.project);
  const segments = r.rel.split("/");
  const name = segments.pop() as string;
  let folder = await open(r.project.root, DIR_FLAGS);
  try {
    let real = await whereIs(folder);
    if (real === null) {
      await folder.close();
      return { anchored: false };
    }
    if (real !== realRoot) throw escaped(r, "is in a project folder that moved");
    for (const segment of segments) {
      // Nothing is created where the write itself could not land, not even a folder on the way.
      const refusal = refusalIn(real, control, scope, true);
      const next = await openChild(r, folder, segment, create && refusal === null);
      if (next === null) {
        if (create) throw escaped(r, refusal as string);
        await folder.close();
        return { anchored: true, parent: null };
      }
      await folder.close();
      folder = next;
      real = await whereIs(folder);
      if (real === null || real === GONE) throw removedWhileWritten(r);
      if (!isInside(real, realRoot))
        throw escaped(r, "now leads outside the project through a symbolic link");
    }
    const refusal = refusalIn(real, control, scope, false);
    if (refusal !== null) throw escaped(r, refusal);
    return { anchored: true, parent: { folder, name } };
  } catch (e) {
    await folder.close();
    throw e;
  }
}

/**
 * Why nothing may be written in the folder at `real` (null: it may): the control area never, and
 * with `scope.within` only inside it — or, for a folder on the way (`onTheWay`), above it.
 */
function refusalIn(real: string, control: string, scope: WriteScope, onTheWay: boolean): string | null {
  if (isInside(real, control))
    return "now leads into the project's control area (.nbook/) through a symbolic link";
  const { within } = scope;
  if (within === undefined || isInside(real, within) || (onTheWay && isInside(within, real))) return null;
  return "now leads out of .agent/plan/ through a symbolic link";
}

/** Open `segment` of an opened folder; create it first when missing and `create`. */
async function openChild(
  r: ResolvedPath,
  folder: FileHandle,
  segment: string,
  create: boolean,
): Promise<FileHandle | null> {
  for (let attempt = 0; attempt < OPEN_ATTEMPTS; attempt++) {
    try {
      return await open(at(folder, segment), DIR_FLAGS);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOTDIR")
        throw new NbError("invalid_input", `${r.display}: ${segment} is a file, not a folder`);
      if (code === "ELOOP") throw escaped(r, "goes through a loop of symbolic links");
      if (code !== "ENOENT") throw e;
      if (!create) return null;
    }
    // mkdir never follows its last component: a link put there since is EEXIST, then opened and checked.
    await mkdir(at(folder, segment)).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== "EEXIST") throw e;
    });
  }
  throw new NbError(
    "conflict",
    `${r.display}: its folder kept changing while it was written; nothing was written`,
  );
}

/**
 * Write a project file atomically (a temp file in the same folder, then rename; a crash leaves the
 * old or the new content; a replaced file keeps its permissions), through its opened, checked
 * parent folder. Missing parent folders are created. Stale temp files of killed writers in that
 * folder are removed on the way.
 */
export async function writeProjectFile(
  r: ResolvedPath,
  data: string | Uint8Array,
  scope: WriteScope = {},
): Promise<void> {
  const opened = await openParent(r, true, scope);
  if (!opened.anchored) return writeByName(r, data, scope);
  const { folder, name } = opened.parent as Parent;
  try {
    await removeStaleTemps(folder);
    const mode = await stat(at(folder, name)).then(
      (st) => st.mode & PERMISSION_BITS,
      () => null,
    );
    const tmp = at(folder, tempNameFor(name));
    try {
      const file = await open(tmp, TEMP_FLAGS, 0o666);
      try {
        await file.writeFile(data);
        if (mode !== null) await file.chmod(mode);
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(tmp, at(folder, name));
    } catch (e) {
      await rm(tmp, { force: true });
      if ((e as NodeJS.ErrnoException).code === "ENOENT") throw removedWhileWritten(r);
      throw e;
    }
  } finally {
    await folder.close();
  }
}

/**
 * Add `data` at the end of a project file (created when missing, with its folders), through its
 * opened, checked parent folder, after cutting the file to `keepBytes` when given. Only the new
 * bytes are written, so the cost is the change's, not the file's; a crash can leave part of them
 * at the end, which the file's reader must recognise (an unfinished last line). A file with a
 * second name (a hard link, perhaps from outside the project) is refused: it would be changed there too.
 */
export async function appendProjectFile(
  r: ResolvedPath,
  data: string,
  keepBytes?: number,
  scope: WriteScope = {},
): Promise<void> {
  const opened = await openParent(r, true, scope);
  if (!opened.anchored) {
    checkByName(r, scope);
    return appendAt(r, r.abs, data, keepBytes);
  }
  const { folder, name } = opened.parent as Parent;
  try {
    await appendAt(r, at(folder, name), data, keepBytes);
  } finally {
    await folder.close();
  }
}

async function appendAt(r: ResolvedPath, target: string, data: string, keepBytes?: number): Promise<void> {
  let file: FileHandle;
  try {
    file = await open(target, APPEND_FLAGS, 0o666);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw escaped(r, "is a symbolic link");
    if (code === "ENXIO")
      throw new NbError("unsupported", `${r.display} is not a regular file; nothing was written`);
    throw e;
  }
  try {
    const st = await file.stat();
    if (!st.isFile())
      throw new NbError("unsupported", `${r.display} is not a regular file; nothing was written`);
    if (st.nlink > 1) throw escaped(r, "has another name (a hard link) that would change too");
    if (keepBytes !== undefined && keepBytes < st.size) await file.truncate(keepBytes);
    await file.write(data);
    await file.sync();
  } finally {
    await file.close();
  }
}

/** Delete a project file through its opened, checked parent folder (a link there is removed, never followed). */
export async function removeProjectFile(r: ResolvedPath, scope: WriteScope = {}): Promise<void> {
  const opened = await openParent(r, false, scope);
  if (!opened.anchored) return removeByName(r, scope);
  if (opened.parent === null) throw new NbError("not_found", `File not found: ${r.display}`);
  const { folder, name } = opened.parent;
  try {
    await unlink(at(folder, name)).catch((e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") throw new NbError("not_found", `File not found: ${r.display}`);
      throw e;
    });
  } finally {
    await folder.close();
  }
}

/**
 * Remove a project folder if it is empty, through its opened, checked parent (a link there is not a
 * folder and stays). False when it is missing, not empty or not a folder: nothing is removed then.
 */
export async function removeEmptyProjectFolder(r: ResolvedPath): Promise<boolean> {
  const opened = await openParent(r, false, {});
  if (!opened.anchored) {
    checkByName(r, {});
    return rmdir(r.abs).then(
      () => true,
      () => false,
    );
  }
  if (opened.parent === null) return false;
  const { folder, name } = opened.parent;
  try {
    return await rmdir(at(folder, name)).then(
      () => true,
      () => false,
    );
  } finally {
    await folder.close();
  }
}

/** Remove the folder's temp files left by writers killed more than a minute ago. */
async function removeStaleTemps(folder: FileHandle): Promise<void> {
  const names = (await readdir(at(folder, ""))).filter(isTempName);
  const before = Date.now() - STALE_TEMP_MS;
  for (const n of names) {
    const st = await lstat(at(folder, n)).catch(() => null);
    if (st?.isFile() && st.mtimeMs < before) await unlink(at(folder, n)).catch(() => {});
  }
}

/** The checks made by name, where descriptors cannot be located: they narrow the window, not close it. */
function checkByName(r: ResolvedPath, scope: WriteScope): void {
  const real = realPathOf(r.abs, r.display);
  if (!isInside(real, r.project.realRoot))
    throw escaped(r, "now leads outside the project through a symbolic link");
  if (isInside(real, controlAreaOf(r.project)))
    throw escaped(r, "now leads into the project's control area (.nbook/) through a symbolic link");
  if (scope.within !== undefined && !isInside(real, scope.within))
    throw escaped(r, "now leads out of .agent/plan/ through a symbolic link");
}

async function writeByName(r: ResolvedPath, data: string | Uint8Array, scope: WriteScope): Promise<void> {
  checkByName(r, scope);
  await writeFileAtomic(r.abs, data);
}

async function removeByName(r: ResolvedPath, scope: WriteScope): Promise<void> {
  checkByName(r, scope);
  await unlink(r.abs).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") throw new NbError("not_found", `File not found: ${r.display}`);
    throw e;
  });
}

/** A folder to list: its host path, the real folder it must be inside, and how to name both in errors. */
export interface FolderToList {
  abs: string;
  root: string;
  rootName: string;
  label: string;
}

/**
 * The entries of a folder, listed through its opened descriptor once that is checked to be really
 * inside its root: a name flipped to a link out since it was authorised lists nothing of the host.
 */
export async function listFolderWithin(f: FolderToList): Promise<Dirent[]> {
  let folder: FileHandle;
  try {
    folder = await open(f.abs, DIR_FLAGS);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new NbError("not_found", `Folder not found: ${f.label}`);
    if (code === "ENOTDIR") throw new NbError("invalid_input", `${f.label} is a file, not a folder`);
    throw e;
  }
  try {
    const real = await whereIs(folder);
    if (real === null) return await readdir(f.abs, { withFileTypes: true });
    if (real === GONE) throw new NbError("not_found", `Folder not found: ${f.label}`);
    if (!isInside(real, f.root))
      throw new NbError("path_escape", `${f.label} changed into a link to a folder outside ${f.rootName}`);
    return await readdir(at(folder, ""), { withFileTypes: true });
  } finally {
    await folder.close();
  }
}
