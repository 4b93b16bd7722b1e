import type { BigIntStats } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { writeFileAtomicSync } from "../core/atomic-write.js";
import { readTextSafeSync } from "../workspace/safe-read.js";
import type { Workspace } from "../workspace/workspace.js";

/** What is remembered of a broken workflow file: why it is broken, and where. */
export interface BrokenVerdict {
  reason: string;
  line?: number;
}

/**
 * A file's identity: device, inode, size, and modification and change times to the nanosecond.
 * Writing, replacing or touching the file changes it, and the change time cannot be set back.
 */
export function fileIdentity(st: BigIntStats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

const CACHE_FILE = "workflows-broken.json";
/** Files remembered at most; the least recently judged are forgotten first. */
const MAX_ENTRIES = 500;
const MAX_CACHE_BYTES = 1024 * 1024;

const Entry = z.object({ identity: z.string(), reason: z.string(), line: z.number().int().optional() });
const CacheFile = z.object({ version: z.literal(1), files: z.record(z.string(), Entry) });
type Entries = Record<string, z.infer<typeof Entry>>;

/**
 * The workflow files found broken, by path and identity, in the workspace's `.nbook/cache/`: a
 * hostile `workflow.js` (one that runs out its time budget) costs one evaluation per version of
 * the file, not one per process. Only broken verdicts are kept — a file is never taken as good
 * without being evaluated — and a damaged cache is simply started afresh.
 */
export class BrokenWorkflowCache {
  private readonly file: string;

  constructor(workspace: Workspace) {
    this.file = join(workspace.cacheDir, CACHE_FILE);
  }

  /** The verdict on the file at `abs` when it still has `identity`. */
  get(abs: string, identity: string): BrokenVerdict | null {
    const e = this.read()[abs];
    if (!e || e.identity !== identity) return null;
    return e.line === undefined ? { reason: e.reason } : { reason: e.reason, line: e.line };
  }

  /** Remember that the file at `abs`, as `identity`, is broken. */
  set(abs: string, identity: string, verdict: BrokenVerdict): void {
    const files = this.read();
    // Re-inserted last: the object's order is least recently judged first.
    delete files[abs];
    files[abs] = { identity, ...verdict };
    const keys = Object.keys(files);
    for (const k of keys.slice(0, Math.max(0, keys.length - MAX_ENTRIES))) delete files[k];
    try {
      writeFileAtomicSync(this.file, `${JSON.stringify({ version: 1, files })}\n`);
    } catch {
      // A cache that cannot be written only costs the next process an evaluation.
    }
  }

  private read(): Entries {
    try {
      const text = readTextSafeSync(this.file, { label: CACHE_FILE, root: null, maxBytes: MAX_CACHE_BYTES });
      if (text === null) return {};
      const r = CacheFile.safeParse(JSON.parse(text));
      return r.success ? r.data.files : {};
    } catch {
      return {};
    }
  }
}
