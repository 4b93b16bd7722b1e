import { NbError } from "../../core/errors.js";
import { sharedPool } from "../../core/workers/pool.js";
import type { Extracted } from "./tidy.js";

/** One page for an extraction worker. */
export interface ExtractJob {
  html: string;
  url: string;
}

/**
 * How long one page's extraction may take before its worker is terminated. Pages too deep or too
 * large are refused in milliseconds before they are parsed (complexity.ts); this bounds whatever
 * else is slow, so no page holds a worker, and a waiting call, for long.
 */
export const EXTRACT_DEADLINE_MS = 10_000;

const pool = sharedPool<ExtractJob, Extracted>({
  base: import.meta.url,
  name: "extract-worker",
  keepIdle: 1,
  maxWorkers: 2,
  bootTimeoutMs: 30_000,
  label: "The page extraction worker",
});

/**
 * Readable Markdown from an HTML page, extracted in a worker thread (parsing, Readability and
 * turndown are synchronous and take seconds on a large page: on the main thread they would stall
 * every session, the MCP server and `nbook serve` meanwhile). Killed at `deadlineMs`, or when
 * `signal` aborts.
 */
export function extractInWorker(
  html: string,
  url: string,
  opts: { deadlineMs?: number; signal?: AbortSignal } = {},
): Promise<Extracted> {
  const deadlineMs = opts.deadlineMs ?? EXTRACT_DEADLINE_MS;
  return pool.run(
    { html, url },
    {
      deadlineMs,
      ...(opts.signal ? { signal: opts.signal } : {}),
      timedOut: () =>
        new NbError(
          "timeout",
          `web_fetch gave up on ${url}: extracting its text took longer than ${deadlineMs / 1000} s (the page is too complex)`,
        ),
      aborted: () => new NbError("aborted", `web_fetch of ${url} was aborted`),
    },
  );
}

/** Terminate the extraction workers (tests, shutdown). */
export function closeExtraction(): Promise<void> {
  return pool.close();
}
