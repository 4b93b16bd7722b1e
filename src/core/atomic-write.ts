import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { chmod, mkdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

// Keeps the temp name within the 255-byte file name limit whatever the target's name.
const TEMP_NAME_BYTES = 200;

/** The name of a fresh temp file for writing `name` in the same folder: `.<name>.<12 hex>.tmp`. */
export function tempNameFor(name: string): string {
  const kept = Buffer.from(name)
    .subarray(0, TEMP_NAME_BYTES)
    .toString("utf8")
    .replace(/\uFFFD$/, "");
  return `.${kept}.${randomBytes(6).toString("hex")}.tmp`;
}

/** True for a name tempNameFor makes. */
export function isTempName(name: string): boolean {
  return /^\..+\.[0-9a-f]{12}\.tmp$/s.test(name);
}

function tempPathFor(target: string): string {
  return join(dirname(target), tempNameFor(basename(target)));
}

/** The permission bits a replaced file passes on to its replacement. */
export const PERMISSION_BITS = 0o7777;

/**
 * Write a file atomically: a temp file in the same folder, then rename. Creates parent folders;
 * a replaced file keeps its permissions (an executable script stays executable). It goes by name,
 * following whatever links the folders are when it runs: for NeuroBook's own files. A project's
 * files, whose folders an agent's commands can change, go through writeProjectFile (workspace/anchored-fs).
 */
export async function writeFileAtomic(target: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(target), { recursive: true });
  const mode = await stat(target).then(
    (st) => st.mode & PERMISSION_BITS,
    () => null,
  );
  const tmp = tempPathFor(target);
  try {
    await writeFile(tmp, data, { flush: true });
    if (mode !== null) await chmod(tmp, mode);
    await rename(tmp, target);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

/** Synchronous twin of writeFileAtomic, for CLI setup code. */
export function writeFileAtomicSync(target: string, data: string | Uint8Array): void {
  mkdirSync(dirname(target), { recursive: true });
  const existing = statSync(target, { throwIfNoEntry: false });
  const tmp = tempPathFor(target);
  try {
    writeFileSync(tmp, data, { flush: true });
    if (existing) chmodSync(tmp, existing.mode & PERMISSION_BITS);
    renameSync(tmp, target);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}
