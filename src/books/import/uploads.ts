import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { z } from "zod";
import { writeFileAtomicSync } from "../../core/atomic-write.js";
import { NbError } from "../../core/errors.js";
import type { Workspace } from "../../workspace/workspace.js";
import { type ImportSource, MAX_IMPORT_BYTES } from "./read.js";

/** An upload waiting for its plan to be accepted; older ones are cleared when a new one comes. */
const UPLOAD_TTL_MS = 24 * 60 * 60 * 1000;

/** An upload's id, as the API names it. */
export const UploadId = z.string().regex(/^[0-9a-f]{24}$/, "not an import id");

const dirOf = (ws: Workspace) => join(ws.cacheDir, "imports");

/** File names as uploaded, kept for the format (by extension) and the plan; never a path. */
function safeName(name: string): string {
  const base = basename(name.replace(/\\/g, "/"))
    .replace(/[\u0000-\u001f]/g, "")
    .slice(0, 200);
  return base || "manuscript";
}

/** Clear uploads older than a day (an upload whose plan was never accepted). */
function sweep(ws: Workspace): void {
  const dir = dirOf(ws);
  const now = Date.now();
  for (const id of readdirSync(dir)) {
    const st = statSync(join(dir, id), { throwIfNoEntry: false });
    if (st && now - st.mtimeMs > UPLOAD_TTL_MS) rmSync(join(dir, id), { recursive: true, force: true });
  }
}

/** Keep an uploaded manuscript in the workspace cache until it is imported or discarded. */
export function saveUpload(ws: Workspace, name: string, bytes: Buffer): string {
  if (bytes.length > MAX_IMPORT_BYTES) {
    throw new NbError(
      "limit_exceeded",
      `The upload is larger than the import limit of ${MAX_IMPORT_BYTES} bytes`,
      {
        details: { reason: "too_large", bytes: bytes.length, limit: MAX_IMPORT_BYTES },
      },
    );
  }
  mkdirSync(dirOf(ws), { recursive: true });
  sweep(ws);
  const id = randomBytes(12).toString("hex");
  writeFileAtomicSync(join(dirOf(ws), id, "name"), safeName(name));
  writeFileAtomicSync(join(dirOf(ws), id, "bytes"), bytes);
  return id;
}

/** The upload `id` as an import source; `not_found` when it was imported, discarded or cleared. */
export function uploadSource(ws: Workspace, id: string): ImportSource {
  const dir = join(dirOf(ws), UploadId.parse(id));
  try {
    return { name: readFileSync(join(dir, "name"), "utf8"), bytes: readFileSync(join(dir, "bytes")) };
  } catch {
    throw new NbError(
      "not_found",
      `No upload ${id} (imported, discarded, or older than a day): upload the file again`,
    );
  }
}

/** Forget an upload. */
export function dropUpload(ws: Workspace, id: string): void {
  rmSync(join(dirOf(ws), UploadId.parse(id)), { recursive: true, force: true });
}
