import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { deflateSync, inflateSync } from "node:zlib";

/** The kinds of object a history commit is made of. */
export type ObjectType = "blob" | "tree" | "commit";

/**
 * Loose objects are deflated at zlib's fastest level, as git's own `core.looseCompression`
 * default does: they are written on every recorded change, and `prune` packs them tighter.
 * Trees are stored (level 0): mostly object ids, they shrink by about a quarter at level 1, and
 * deflating a large folder's tree (5,000 chapters: 175 KB) took most of a chapter write's record.
 */
const LEVEL = { blob: 1, commit: 1, tree: 0 } as const;

/** git's id of an object: sha1 of `<type> <size>\0` and the bytes. */
export function objectId(type: ObjectType, data: Buffer): string {
  return createHash("sha1").update(`${type} ${data.length}\0`).update(data).digest("hex");
}

/**
 * Write one object into `gitDir` as git itself writes a loose object (deflated, under
 * objects/xx/…, through a temp file and a rename so it is whole or absent) and return its id.
 * An object already there is left as it is: its id names its content. `id`: the object's id
 * when the caller hashed these very bytes already (a large file is not hashed twice).
 */
export function writeObject(
  gitDir: string,
  type: ObjectType,
  data: Buffer,
  id = objectId(type, data),
): string {
  const dir = join(gitDir, "objects", id.slice(0, 2));
  const file = join(dir, id.slice(2));
  if (existsSync(file)) return id;
  const temp = join(dir, `tmp_obj_${randomBytes(6).toString("hex")}`);
  const bytes = deflateSync(Buffer.concat([Buffer.from(`${type} ${data.length}\0`), data]), {
    level: LEVEL[type],
  });
  try {
    writeFileSync(temp, bytes, { mode: 0o444 });
  } catch (e) {
    // The first object of its fan-out folder makes the folder.
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    mkdirSync(dir, { recursive: true });
    writeFileSync(temp, bytes, { mode: 0o444 });
  }
  renameSync(temp, file);
  return id;
}

/** A loose object's type and bytes, or null when it is not loose here (packed, or absent). */
export function readLooseObject(gitDir: string, id: string): { type: string; data: Buffer } | null {
  let raw: Buffer;
  try {
    raw = inflateSync(readFileSync(join(gitDir, "objects", id.slice(0, 2), id.slice(2))));
  } catch {
    return null;
  }
  const nul = raw.indexOf(0);
  return { type: raw.subarray(0, raw.indexOf(32)).toString("latin1"), data: raw.subarray(nul + 1) };
}

/** The commit a ref points at, or null when it does not exist (loose first, then packed-refs). */
export function readRef(gitDir: string, ref: string): string | null {
  const loose = readText(join(gitDir, ref));
  if (loose !== null) return loose.trim() || null;
  const packed = readText(join(gitDir, "packed-refs")) ?? "";
  const line = packed.split("\n").find((l) => l.endsWith(` ${ref}`));
  return line ? line.split(" ")[0] : null;
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

/** What a ref update did: moved it, found it moved by another process, or found it locked. */
export type RefUpdate = "done" | "moved" | "locked";

/**
 * Move `ref` to `next` if it still points at `expected` (null: absent), the way git does: under
 * `<ref>.lock`, created exclusively, then renamed over the ref.
 */
export function updateRef(gitDir: string, ref: string, next: string, expected: string | null): RefUpdate {
  const file = join(gitDir, ref);
  const lock = `${file}.lock`;
  let fd: number;
  try {
    fd = openSync(lock, "wx");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return "locked";
    throw e;
  }
  try {
    if (readRef(gitDir, ref) !== expected) {
      closeSync(fd);
      unlinkSync(lock);
      return "moved";
    }
    writeFileSync(fd, `${next}\n`);
    closeSync(fd);
    renameSync(lock, file);
    return "done";
  } catch (e) {
    try {
      unlinkSync(lock);
    } catch {
      // Renamed already, or never written: nothing is left to remove.
    }
    throw e;
  }
}
