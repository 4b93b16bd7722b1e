import { pipeline, type Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { Agent, type Dispatcher, request } from "undici";
import { NbError } from "../../core/errors.js";
import { type BodyKind, hasNulBytes, kindOfMime, parseContentType, sniffKind } from "./content-type.js";
import { AllowList, findBlocked, guardedConnector, type Resolver } from "./guard.js";

/** What one fetch may cost. */
export interface FetchLimits {
  /** The whole fetch, every redirect hop and the body included. */
  timeoutMs: number;
  /** The body is read up to this many bytes; the rest is dropped and the result says truncated. */
  maxBytes: number;
  maxRedirects: number;
}

/** A fetched body before decoding. */
export interface RawPage {
  url: string;
  finalUrl: string;
  status: number;
  mime: string;
  /** The charset the Content-Type header declared, if any. */
  headerCharset?: string;
  kind: Exclude<BodyKind, "refused">;
  body: Buffer;
  /** True when the body was longer than `maxBytes` and its tail was not read. */
  bytesTruncated: boolean;
  redirects: number;
}

const HEADERS = {
  "user-agent": "Mozilla/5.0 (compatible; NeuroBookAgent/1.0)",
  accept:
    "text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,application/json;q=0.7,*/*;q=0.1",
  "accept-language": "zh-CN,zh;q=0.9,en;q=0.8",
  "accept-encoding": "gzip, deflate, br",
};

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const agents = new Map<string, Agent>();

/**
 * The SSRF-guarded dispatcher for an allowlist (one per allowlist, so keep-alive connections are
 * reused; each new connection is checked). With a custom resolver (tests) a fresh one is made.
 */
export function guardedAgent(allowPrivate: readonly string[], resolve?: Resolver): Agent {
  const create = () =>
    new Agent({ connect: guardedConnector({ allow: new AllowList(allowPrivate), resolve }) });
  if (resolve) return create();
  const key = JSON.stringify([...allowPrivate].sort());
  let agent = agents.get(key);
  if (!agent) {
    agent = create();
    agents.set(key, agent);
  }
  return agent;
}

/** Only http and https, on the first URL and on every redirect hop. */
export function checkScheme(url: URL): void {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new NbError(
      "invalid_input",
      `web_fetch fetches only http and https URLs; ${url.protocol} is refused (${url.href.slice(0, 200)})`,
    );
  }
}

/** Parse a URL for web_fetch: absolute, http(s), no fragment sent. */
export function parseFetchUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new NbError("invalid_input", `not an absolute URL: ${text.slice(0, 200)}`);
  }
  checkScheme(url);
  url.hash = "";
  return url;
}

/**
 * GET a page through `dispatcher`, following redirects by hand (each hop's scheme checked, each
 * connection checked by the guard), refusing binary bodies and reading at most `maxBytes`.
 */
export async function fetchRaw(
  start: URL,
  limits: FetchLimits,
  opts: { dispatcher: Dispatcher; signal?: AbortSignal },
): Promise<RawPage> {
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
  let url = start;
  let redirects = 0;
  try {
    for (;;) {
      const res = await request(url, {
        dispatcher: opts.dispatcher,
        method: "GET",
        headers: HEADERS,
        signal,
      });
      const location = header(res.headers, "location");
      if (REDIRECTS.has(res.statusCode) && location) {
        await res.body.dump();
        if (redirects >= limits.maxRedirects) {
          throw new NbError(
            "limit_exceeded",
            `more than ${limits.maxRedirects} redirects from ${start.href} (web.fetch.maxRedirects)`,
          );
        }
        const next = new URL(location, url);
        checkScheme(next);
        next.hash = "";
        url = next;
        redirects++;
        continue;
      }
      if (res.statusCode < 200 || res.statusCode > 299) {
        await res.body.dump();
        throw new NbError("io_error", `HTTP ${res.statusCode} from ${url.href}`);
      }
      const type = parseContentType(header(res.headers, "content-type"));
      const declared = kindOfMime(type.mime);
      if (declared === "refused") {
        discard(res.body);
        throw binaryRefused(url, type.mime);
      }
      const { body, truncated } = await readCapped(
        decompressed(res.body, header(res.headers, "content-encoding")),
        limits.maxBytes,
      );
      const head = body.subarray(0, 1024);
      const kind =
        declared === "unknown" ? sniffKind(head) : hasNulBytes(head, type.charset) ? "refused" : declared;
      if (kind === "refused") throw binaryRefused(url, type.mime || "no content type");
      return {
        url: start.href,
        finalUrl: url.href,
        status: res.statusCode,
        mime: type.mime || (kind === "html" ? "text/html" : "text/plain"),
        ...(type.charset ? { headerCharset: type.charset } : {}),
        kind,
        body,
        bytesTruncated: truncated,
        redirects,
      };
    }
  } catch (e) {
    throw fetchError(e, url, limits, { aborted: opts.signal?.aborted === true, timedOut: deadline.aborted });
  }
}

function binaryRefused(url: URL, mime: string): NbError {
  return new NbError(
    "unsupported",
    `web_fetch reads HTML, text, XML and JSON; ${url.href} is binary (${mime}) and was not read`,
  );
}

/**
 * The body as the page's bytes: a gzip, deflate or brotli body is inflated as it is read, so the
 * byte cap applies to what the page holds (a small compressed bomb stops at the cap too).
 */
function decompressed(body: Readable, encoding: string | undefined): Readable {
  const coding = encoding?.trim().toLowerCase();
  const inflate =
    coding === "gzip" || coding === "x-gzip"
      ? createGunzip()
      : coding === "deflate"
        ? createInflate()
        : coding === "br"
          ? createBrotliDecompress()
          : null;
  if (!inflate) return body;
  // pipeline carries an error of either stream to the one that is read, and destroys both.
  pipeline(body, inflate, () => {});
  return inflate;
}

/** Drop a body unread; its stream's abort error has nobody to tell. */
function discard(body: { on(event: "error", fn: () => void): unknown; destroy(): void }): void {
  body.on("error", () => {});
  body.destroy();
}

/** Read a body up to `max` bytes; past that the stream is dropped and the result says so. */
async function readCapped(body: Readable, max: number) {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of body) {
    if (size + chunk.length > max) {
      chunks.push(chunk.subarray(0, max - size));
      size = max;
      truncated = true;
      discard(body);
      break;
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { body: Buffer.concat(chunks, size), truncated };
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Turn what a fetch threw into an NbError the model can act on (no stack, no host paths). */
function fetchError(
  e: unknown,
  url: URL,
  limits: FetchLimits,
  state: { aborted: boolean; timedOut: boolean },
): NbError {
  if (e instanceof NbError) return e;
  const blocked = findBlocked(e);
  if (blocked) {
    return new NbError(
      "not_allowed",
      `web_fetch refused ${url.href}: ${blocked.message}. ` +
        "Only public addresses are fetched; a service of your own can be allowed in web.fetch.allowPrivate " +
        "of the workspace .nbook/config.json.",
      { details: { host: blocked.host, address: blocked.address, reason: blocked.reason } },
    );
  }
  if (state.aborted) return new NbError("aborted", `web_fetch of ${url.href} was aborted`);
  if (state.timedOut) {
    return new NbError(
      "timeout",
      `no complete answer from ${url.host} within ${limits.timeoutMs} ms (web.fetch.timeoutMs)`,
    );
  }
  const err = e as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = err?.code ?? err?.cause?.code;
  return new NbError(
    "io_error",
    `could not fetch ${url.href}: ${code ?? (err instanceof Error ? err.message : String(e))}`,
  );
}
