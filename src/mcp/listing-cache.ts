// What tools/list answers depends only on the tools' code and the profile's allowlist (and, for
// bash, on whether it can be confined here), so it is kept per build: a server starting on the
// same build answers from the cache without loading any tool's code.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { writeFileAtomicSync } from "../core/atomic-write.js";
import type { ResolvedAllowlist } from "../profiles/types.js";
import { sandboxStatus } from "../tools/files/bash-sandbox.js";
import type { Workspace } from "../workspace/workspace.js";
import { type McpToolInfo, McpToolInfoSchema } from "./tools.js";

/**
 * The stamp the build writes beside the compiled code (scripts/build-stamp.mjs): every source
 * file's size and mtime. Run from the sources there is none, and nothing is cached.
 */
const BUILD_STAMP = new URL("../.build-stamp", import.meta.url);

/** Where one listing is cached: the file, and the prefix its build's files share. */
export interface ListingCache {
  readonly dir: string;
  readonly file: string;
  readonly build: string;
}

const ListingSchema = z.array(McpToolInfoSchema);

const hash = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 32);

/** The cache slot for this build, profile and allowlist; null when run from the sources. */
export function listingCache(
  workspace: Workspace,
  profileKey: string,
  allow: ResolvedAllowlist,
): ListingCache | null {
  let stamp: string;
  try {
    stamp = readFileSync(BUILD_STAMP, "utf8");
  } catch {
    return null;
  }
  const build = hash(stamp);
  const confined = allow.has("bash") ? sandboxStatus().confined : null;
  const key = hash(JSON.stringify({ profileKey, allow: [...allow], confined }));
  const dir = join(workspace.cacheDir, "mcp-tools");
  return { dir, file: join(dir, `${build}-${key}.json`), build };
}

/** The cached listing, or null when there is none or it does not parse (then it is described anew). */
export function cachedListing(cache: ListingCache): McpToolInfo[] | null {
  let text: string;
  try {
    text = readFileSync(cache.file, "utf8");
  } catch {
    return null;
  }
  try {
    const parsed = ListingSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Store a listing, and drop those of other builds. A cache that cannot be written only costs speed. */
export function storeListing(cache: ListingCache, tools: McpToolInfo[]): void {
  try {
    writeFileAtomicSync(cache.file, JSON.stringify(tools));
    for (const f of readdirSync(cache.dir)) {
      if (f.endsWith(".json") && !f.startsWith(`${cache.build}-`))
        rmSync(join(cache.dir, f), { force: true });
    }
  } catch {
    // A read-only or full disk: the next start describes the tools again.
  }
}
