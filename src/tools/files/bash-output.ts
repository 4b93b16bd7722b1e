import { randomUUID } from "node:crypto";
import { readdir, readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../../core/atomic-write.js";
import { NbError } from "../../core/errors.js";
import type { Workspace } from "../../workspace/workspace.js";

const LOCATOR =
  /^bash-output:\/\/([0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})\/output\.log$/;
const TTL_MS = 7 * 24 * 3600 * 1000;
const MAX_ENTRIES = 128;

function storeDir(ws: Workspace): string {
  return join(ws.cacheDir, "bash-output");
}

/** Save a command's full output and return the locator `read` accepts. Old entries are reclaimed. */
export async function spillBashOutput(ws: Workspace, output: string): Promise<string> {
  const id = randomUUID();
  await writeFileAtomic(join(storeDir(ws), id, "output.log"), output);
  await reclaim(ws);
  return `bash-output://${id}/output.log`;
}

/** Read a spilled output by locator; the host path is never shown. */
export async function readBashOutput(ws: Workspace, locator: string): Promise<string> {
  const m = LOCATOR.exec(locator);
  if (!m) throw new NbError("invalid_input", `Not a bash output locator: ${locator.slice(0, 80)}`);
  try {
    return await readFile(join(storeDir(ws), m[1], "output.log"), "utf8");
  } catch {
    throw new NbError(
      "not_found",
      `That bash output has been reclaimed (outputs are kept ${TTL_MS / 86400000} days): ${locator}`,
    );
  }
}

async function reclaim(ws: Workspace): Promise<void> {
  const dir = storeDir(ws);
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => /^[0-9a-f-]{36}$/.test(n));
  const entries = await Promise.all(
    names.map(async (n) => ({ n, mtime: (await stat(join(dir, n)).catch(() => null))?.mtimeMs ?? 0 })),
  );
  entries.sort((a, b) => b.mtime - a.mtime);
  const now = Date.now();
  const doomed = entries.filter((e, i) => i >= MAX_ENTRIES || now - e.mtime > TTL_MS);
  await Promise.all(doomed.map((e) => rm(join(dir, e.n), { recursive: true, force: true })));
}
