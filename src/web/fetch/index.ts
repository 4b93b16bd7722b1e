/**
 * web_fetch's domain: a guarded HTTP fetch (SSRF checks at connection time), charset decoding,
 * extraction to Markdown (in a worker thread), a short-lived page cache and paging. Knows nothing
 * about tools.
 */
import type { Dispatcher } from "undici";
import type { FetchSettings } from "../config.js";
import { type FetchedPage, PageCache } from "./cache.js";
import { fetchRaw, guardedAgent, parseFetchUrl } from "./client.js";
import { decodeBody } from "./decode.js";
import { extractInWorker } from "./extraction.js";
import type { Resolver } from "./guard.js";
import { extractText } from "./tidy.js";

export type { FetchedPage } from "./cache.js";

export interface FetchPageOptions {
  /** Folder of the page cache; no caching without one. */
  cacheDir?: string;
  signal?: AbortSignal;
  /** Host-name resolution for the guard (tests); the system resolver by default. */
  resolve?: Resolver;
  /** The dispatcher to fetch through (a guarded one from `guardedAgent`, or the benchmark's unguarded baseline). */
  dispatcher?: Dispatcher;
  /** How long extracting the text may take (tests); EXTRACT_DEADLINE_MS by default. */
  extractDeadlineMs?: number;
}

/** Fetch a page (or take it from the cache) and extract its text. */
export async function fetchPage(
  urlText: string,
  settings: FetchSettings,
  opts: FetchPageOptions = {},
): Promise<{ page: FetchedPage; fromCache: boolean }> {
  const url = parseFetchUrl(urlText);
  const cache = opts.cacheDir ? new PageCache(opts.cacheDir, settings.cacheTtlSeconds * 1000) : null;
  const key = PageCache.key(url.href, settings);
  const cached = cache?.get(key);
  if (cached) return { page: cached, fromCache: true };
  const raw = await fetchRaw(url, settings, {
    dispatcher: opts.dispatcher ?? guardedAgent(settings.allowPrivate, opts.resolve),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const decoded = decodeBody(raw.body, raw.headerCharset, raw.kind === "html" || raw.mime.includes("xml"));
  const extracted =
    raw.kind === "html"
      ? await extractInWorker(decoded.text, raw.finalUrl, {
          ...(opts.extractDeadlineMs ? { deadlineMs: opts.extractDeadlineMs } : {}),
          ...(opts.signal ? { signal: opts.signal } : {}),
        })
      : extractText(decoded.text);
  const page: FetchedPage = {
    url: raw.url,
    finalUrl: raw.finalUrl,
    status: raw.status,
    mime: raw.mime,
    charset: decoded.charset,
    charsetSource: decoded.source,
    fetchedAt: new Date().toISOString(),
    bytes: raw.body.length,
    bytesTruncated: raw.bytesTruncated,
    redirects: raw.redirects,
    ...extracted,
  };
  cache?.put(key, page);
  return { page, fromCache: false };
}

/** One window of a page's content. */
export interface PageSlice {
  content: string;
  offset: number;
  end: number;
  total: number;
  /** Where the next window starts, when there is more. */
  nextOffset?: number;
}

/** UTF-8 bytes a window holds at most, under the 50 KiB a tool result may show. */
const MAX_SLICE_BYTES = 45 * 1024;

/**
 * The characters [offset, offset + maxCharacters) of `content` (code points, never a split
 * surrogate pair), shortened to fit a tool result when wide characters would overflow it.
 */
export function slicePage(content: string, offset: number, maxCharacters: number): PageSlice {
  const chars = Array.from(content);
  const total = chars.length;
  const start = Math.min(offset, total);
  let end = Math.min(total, start + maxCharacters);
  let bytes = 0;
  for (let i = start; i < end; i++) {
    bytes += Buffer.byteLength(chars[i], "utf8");
    if (bytes > MAX_SLICE_BYTES) {
      end = i;
      break;
    }
  }
  const slice: PageSlice = { content: chars.slice(start, end).join(""), offset: start, end, total };
  if (end < total) slice.nextOffset = end;
  return slice;
}
