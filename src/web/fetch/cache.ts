import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomicSync } from "../../core/atomic-write.js";
import type { CharsetSource } from "./decode.js";
import type { Extracted } from "./tidy.js";

/** A fetched and extracted page as the cache keeps it. */
export interface FetchedPage extends Extracted {
  url: string;
  finalUrl: string;
  status: number;
  mime: string;
  charset: string;
  charsetSource: CharsetSource;
  /** ISO time of the fetch. */
  fetchedAt: string;
  bytes: number;
  bytesTruncated: boolean;
  redirects: number;
}

/** Entries kept at most; the oldest go first. */
const MAX_ENTRIES = 200;

/**
 * A short-lived cache of fetched pages, one JSON file per key in the workspace's cache area
 * (`.nbook/cache/web/`), so paging through a page and repeated calls do not fetch it again.
 */
export class PageCache {
  constructor(
    private readonly dir: string,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cache key of a URL under the settings that change what a fetch returns. */
  static key(url: string, settings: { allowPrivate: readonly string[]; maxBytes: number }): string {
    const allow = [...settings.allowPrivate].map((e) => e.toLowerCase()).sort();
    return createHash("sha256")
      .update(JSON.stringify([url, allow, settings.maxBytes]))
      .digest("hex");
  }

  /** The page stored under `key` if it is younger than the time to live. */
  get(key: string): FetchedPage | null {
    if (this.ttlMs <= 0) return null;
    const file = join(this.dir, `${key}.json`);
    let page: FetchedPage;
    try {
      page = JSON.parse(readFileSync(file, "utf8")) as FetchedPage;
    } catch {
      return null;
    }
    if (this.now() - Date.parse(page.fetchedAt) < this.ttlMs) return page;
    rmSync(file, { force: true });
    return null;
  }

  /** Store a page, then drop expired entries and the oldest past the cap. */
  put(key: string, page: FetchedPage): void {
    if (this.ttlMs <= 0) return;
    mkdirSync(this.dir, { recursive: true });
    writeFileAtomicSync(join(this.dir, `${key}.json`), JSON.stringify(page));
    this.prune();
  }

  private prune(): void {
    const entries: { file: string; mtime: number }[] = [];
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith(".json")) continue;
      const file = join(this.dir, name);
      try {
        entries.push({ file, mtime: statSync(file).mtimeMs });
      } catch {
        // Removed by a concurrent prune.
      }
    }
    entries.sort((a, b) => b.mtime - a.mtime);
    const now = this.now();
    entries.forEach((e, i) => {
      if (i >= MAX_ENTRIES || now - e.mtime >= this.ttlMs) rmSync(e.file, { force: true });
    });
  }
}
