import { isNbError, NbError } from "../core/errors.js";
import { type BookDetail, BookDetailSchema, type RankingSnapshot, RankingSnapshotSchema } from "./shapes.js";
import { assertAnswers, parseSourceData, type ResearchSource } from "./source.js";

/** Default time for one request, connecting and reading the whole body included (as the original). */
export const DEFAULT_HTTP_TIMEOUT_MS = 15_000;

/** The largest answer read; a board or a book is a few kilobytes. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** Characters of a service's own error message repeated in ours. */
const MAX_MESSAGE_CHARS = 300;

export interface HttpSourceOptions {
  /** http(s) URL of the service, without a trailing slash (the config normalises it). */
  baseUrl: string;
  timeoutMs?: number;
  /** Appended to the label, e.g. "(added by project .nbook/config.json)". */
  note?: string;
  /** Where the address is set, as errors name it. */
  setting?: string;
  /**
   * Reach the service only through web_fetch's address guard, with these private addresses
   * allowed (a service a project adds); absent, the user's own service may be anywhere.
   */
  allowPrivate?: readonly string[];
}

/**
 * A research service speaking the NovelScope JSON API (docs/research.md):
 * `GET /v1/rankings/<platform>/<board>` and `GET /v1/books/<platform>/<bookId>`, read-only. The
 * user configures the URL, so it may be on localhost; nbook never sends it anything else.
 */
export class HttpSource implements ResearchSource {
  readonly key: string;
  readonly label: string;
  readonly listsKnown = false;
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly setting: string;
  private readonly allowPrivate?: readonly string[];

  constructor(opts: HttpSourceOptions) {
    this.baseUrl = opts.baseUrl;
    this.allowPrivate = opts.allowPrivate;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
    this.setting = opts.setting ?? "research.http.baseUrl in .nbook/config.json";
    this.key = `http ${opts.baseUrl}`;
    this.label = `the research service at ${opts.baseUrl}${opts.note ? ` ${opts.note}` : ""}`;
  }

  async rankings(platform: string, board: string, signal?: AbortSignal): Promise<RankingSnapshot> {
    const what = `board ${platform}/${board}`;
    const body = await this.get(`/v1/rankings/${seg(platform)}/${seg(board)}`, what, signal);
    const where = `The ${what} from ${this.baseUrl}`;
    const snapshot = parseSourceData(RankingSnapshotSchema, body, where);
    assertAnswers(where, `${platform}/${board}`, `${snapshot.platform}/${snapshot.rankTypeKey}`);
    return snapshot;
  }

  async book(platform: string, bookId: string, signal?: AbortSignal): Promise<BookDetail> {
    const what = `book ${bookId} on ${platform}`;
    const body = await this.get(`/v1/books/${seg(platform)}/${seg(bookId)}`, what, signal);
    const where = `The ${what} from ${this.baseUrl}`;
    const detail = parseSourceData(BookDetailSchema, body, where);
    assertAnswers(where, `${platform}/${bookId}`, `${detail.platform}/${detail.externalBookId}`);
    return detail;
  }

  /** GET one path and return its JSON, mapping every failure to an error that names the service. */
  private async get(path: string, what: string, signal?: AbortSignal): Promise<unknown> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let res: Response;
    try {
      const init = {
        headers: { accept: "application/json" },
        // A service that redirects would send the request elsewhere than the user configured.
        redirect: "manual",
        signal: combined,
      } as const;
      res = this.allowPrivate
        ? await guardedFetch(`${this.baseUrl}${path}`, init, this.allowPrivate)
        : await fetch(`${this.baseUrl}${path}`, init);
    } catch (e) {
      throw (await this.blockedError(e)) ?? this.requestError(e, signal);
    }
    let text: string;
    try {
      text = await readCapped(res, MAX_BODY_BYTES);
    } catch (e) {
      throw isNbError(e) ? withService(e, this.baseUrl) : this.requestError(e, signal);
    }
    if (res.status >= 300 && res.status < 400) {
      const to = res.headers.get("location");
      throw new NbError(
        "io_error",
        `The research service at ${this.baseUrl} answered with a redirect (HTTP ${res.status}${to ? ` to ${clip(to)}` : ""}); set ${this.setting} to the service itself`,
      );
    }
    const json = parseJson(text);
    if (!res.ok) throw this.statusError(res.status, serviceMessage(json, text), what);
    if (json === undefined) {
      const type = res.headers.get("content-type") ?? "no content type";
      throw new NbError(
        "io_error",
        `The research service at ${this.baseUrl} answered ${path} with ${clip(type)}, not JSON: is ${this.setting} the address of a research service?`,
      );
    }
    return json;
  }

  private statusError(status: number, message: string, what: string): NbError {
    const upstream = `HTTP ${status}${message ? `: ${message}` : ""}`;
    if (status === 404) {
      return new NbError("not_found", `No ${what} at the research service ${this.baseUrl} (${upstream})`);
    }
    if (status === 400) {
      return new NbError(
        "invalid_input",
        `The research service ${this.baseUrl} refused ${what} (${upstream})`,
      );
    }
    if (status === 502) {
      return new NbError(
        "io_error",
        `The research service ${this.baseUrl} could not collect ${what} from the platform (${upstream})`,
      );
    }
    return new NbError("io_error", `The research service ${this.baseUrl} failed for ${what} (${upstream})`);
  }

  /** `not_allowed` when the address guard refused the connection, else null. */
  private async blockedError(e: unknown): Promise<NbError | null> {
    if (!this.allowPrivate) return null;
    const { findBlocked } = await import("../web/fetch/guard.js");
    const blocked = findBlocked(e);
    if (!blocked) return null;
    return new NbError(
      "not_allowed",
      `${capitalised(this.label)} is refused: ${blocked.message}. A research service a project adds must be at a public address; a service of your own can be allowed in web.fetch.allowPrivate of the workspace .nbook/config.json, or set as research.http.baseUrl there.`,
      { details: { host: blocked.host, address: blocked.address, reason: blocked.reason } },
    );
  }

  /** A request that got no answer: aborted, timed out, or no connection. */
  private requestError(e: unknown, signal?: AbortSignal): NbError {
    if (signal?.aborted) return new NbError("aborted", "The research request was aborted");
    const name = (e as { name?: string } | undefined)?.name;
    if (name === "TimeoutError" || name === "AbortError") {
      return new NbError(
        "timeout",
        `The research service at ${this.baseUrl} did not answer within ${this.timeoutMs / 1000} s (research.http.timeoutMs)`,
      );
    }
    return new NbError(
      "io_error",
      `Cannot reach the research service at ${this.baseUrl} (${connectionReason(e)}). Is it running? Its address is ${this.setting} (docs/research.md).`,
    );
  }
}

/** A GET through web_fetch's guarded dispatcher (undici's own fetch, which takes its dispatcher). */
async function guardedFetch(
  url: string,
  init: { headers: Record<string, string>; redirect: "manual"; signal: AbortSignal },
  allowPrivate: readonly string[],
): Promise<Response> {
  const [{ fetch: undiciFetch }, { guardedAgent }] = await Promise.all([
    import("undici"),
    import("../web/fetch/client.js"),
  ]);
  return (await undiciFetch(url, { ...init, dispatcher: guardedAgent(allowPrivate) })) as unknown as Response;
}

function capitalised(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function seg(s: string): string {
  return encodeURIComponent(s);
}

function withService(e: NbError, baseUrl: string): NbError {
  return new NbError(e.code, `The research service at ${baseUrl}: ${e.message}`);
}

/** The body as text, refusing one past `max` bytes without reading the rest. */
async function readCapped(res: Response, max: number): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new NbError("limit_exceeded", `the answer is larger than ${max / (1024 * 1024)} MB`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The service's own explanation: `message` (a string or a list, as NestJS sends it), else `error`. */
function serviceMessage(json: unknown, text: string): string {
  if (json && typeof json === "object") {
    const o = json as Record<string, unknown>;
    for (const v of [o.message, o.error]) {
      if (typeof v === "string" && v.trim()) return clip(v);
      if (Array.isArray(v) && v.every((x) => typeof x === "string")) return clip(v.join("; "));
    }
    return "";
  }
  return json === undefined && text.trim() && !/^\s*</.test(text) ? clip(text) : "";
}

/** One line, control characters dropped, at most MAX_MESSAGE_CHARS. */
function clip(s: string): string {
  const line = s.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  return line.length > MAX_MESSAGE_CHARS ? `${line.slice(0, MAX_MESSAGE_CHARS)}…` : line;
}

/** Why a connection failed, from the error `fetch` wraps (no stack, no internals). */
function connectionReason(e: unknown): string {
  let cause: unknown = e;
  for (let i = 0; i < 4 && cause && typeof cause === "object"; i++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string") return REASONS[code] ?? code;
    cause = (cause as { cause?: unknown }).cause;
  }
  return "no connection";
}

const REASONS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  ECONNRESET: "connection reset",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  UND_ERR_SOCKET: "connection closed",
  UND_ERR_CONNECT_TIMEOUT: "connect timeout",
};
