import { closeSync, constants, fstatSync, openSync, readSync, realpathSync, type Stats } from "node:fs";
import { open } from "node:fs/promises";
import { NbError } from "../core/errors.js";
import { isInside } from "./paths.js";

/** How NeuroBook reads one file of a project (or of a folder the user named) for itself. */
export interface SafeReadOptions {
  /** How the file is named in errors: a project-relative path, never a host path. */
  label: string;
  /**
   * The real path the opened file must really be inside (a project's `realRoot`), and then have
   * one name only; null for a folder of the user's own (the workspace layer), where links may lead
   * anywhere.
   */
  root: string | null;
  /** What `root` is, in the error for a file outside it (default "the project"). */
  rootName?: string;
  /** The largest file read; a larger one is `limit_exceeded`. */
  maxBytes: number;
}

// Non-blocking, so opening a FIFO returns at once (it is then refused as not a regular file);
// no controlling terminal from a tty device on the way.
const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;
const CHUNK = 64 * 1024;

/** Where an open file really is, from its descriptor (Linux's /proc/self/fd), or null where the system cannot say. */
export function openedRealPath(fd: number): string | null {
  try {
    return realpathSync(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}

/**
 * A file's bytes, or null when it does not exist. Opened once, without blocking; the opened file
 * must be a regular file, really inside `root` with one name only, and at most `maxBytes` long;
 * it is read from that descriptor, so a name swapped to a FIFO, a device or a link out in between
 * is never read.
 */
export function readFileSafeSync(abs: string, o: SafeReadOptions): Buffer | null {
  let fd: number;
  try {
    fd = openSync(abs, FLAGS);
  } catch (e) {
    return missingOrThrow(e, o);
  }
  try {
    const st = fstatSync(fd);
    checkOpened(st, () => openedRealPath(fd) ?? realPathOrNull(abs), o);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(CHUNK);
      const n = readSync(fd, buf, 0, CHUNK, null);
      if (n === 0) break;
      total += n;
      // The size can grow after the fstat: the cap holds for what is actually read.
      if (total > o.maxBytes) throw tooLarge(o);
      chunks.push(buf.subarray(0, n));
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/** `readFileSafeSync` as UTF-8 text. */
export function readTextSafeSync(abs: string, o: SafeReadOptions): string | null {
  return readFileSafeSync(abs, o)?.toString("utf8") ?? null;
}

/** `readFileSafeSync` without holding the thread. */
export async function readFileSafe(abs: string, o: SafeReadOptions): Promise<Buffer | null> {
  let file: Awaited<ReturnType<typeof open>>;
  try {
    file = await open(abs, FLAGS);
  } catch (e) {
    return missingOrThrow(e, o);
  }
  try {
    const st = await file.stat();
    checkOpened(st, () => openedRealPath(file.fd) ?? realPathOrNull(abs), o);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const { bytesRead, buffer } = await file.read(Buffer.allocUnsafe(CHUNK), 0, CHUNK, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > o.maxBytes) throw tooLarge(o);
      chunks.push(buffer.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, total);
  } finally {
    await file.close();
  }
}

/** `readFileSafe` as UTF-8 text. */
export async function readTextSafe(abs: string, o: SafeReadOptions): Promise<string | null> {
  return (await readFileSafe(abs, o))?.toString("utf8") ?? null;
}

function missingOrThrow(e: unknown, o: SafeReadOptions): null {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return null;
  if (code === "EISDIR") throw new NbError("invalid_input", `${o.label} is a folder, not a file`);
  if (code === "ELOOP") throw new NbError("path_escape", `${o.label} goes through a loop of symbolic links`);
  throw new NbError("io_error", `Cannot read ${o.label}: ${code ?? "error"}`);
}

/** Where a name leads now: the fallback where the descriptor cannot say (not Linux). */
function realPathOrNull(abs: string): string | null {
  try {
    return realpathSync(abs);
  } catch {
    return null;
  }
}

function checkOpened(st: Stats, realPath: () => string | null, o: SafeReadOptions): void {
  if (st.isDirectory()) throw new NbError("invalid_input", `${o.label} is a folder, not a file`);
  // A FIFO or a device would block the read or never end.
  if (!st.isFile()) throw new NbError("unsupported", `${o.label} is not a regular file`);
  if (st.size > o.maxBytes) throw tooLarge(o);
  if (o.root === null) return;
  const real = realPath();
  if (real === null || !isInside(real, o.root)) {
    throw new NbError(
      "path_escape",
      `${o.label} leads outside ${o.rootName ?? "the project"}, so it is not read`,
    );
  }
  // A hard link's other names may be anywhere on the same file system.
  if (st.nlink > 1) {
    throw new NbError(
      "path_escape",
      `${o.label} is a hard link (the file has ${st.nlink} names, possibly outside ${o.rootName ?? "the project"}), so it is not read`,
    );
  }
}

function tooLarge(o: SafeReadOptions): NbError {
  return new NbError(
    "limit_exceeded",
    `${o.label} is larger than ${formatBytes(o.maxBytes)}, the most read of it`,
  );
}

function formatBytes(n: number): string {
  if (n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  return `${Math.round(n / 1024)} KiB`;
}
