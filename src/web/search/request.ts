import { NbError } from "../../core/errors.js";

/** Why one provider did not answer; web_search falls through to the next and lists the reasons. */
export class ProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProviderError";
  }
}

/** Characters of an error body a reason keeps. */
const BODY_CHARS = 300;

export interface JsonRequest {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
  /** The provider's key: removed from any error text (a server may echo it). */
  secret?: string;
}

/**
 * Ask a provider's JSON API. Redirects are refused, so a key in a header never follows one;
 * failures become ProviderError with the HTTP status and the start of the body, or the timeout.
 * The caller's abort stays an abort.
 */
export async function requestJson(url: URL, req: JsonRequest, signal: AbortSignal): Promise<unknown> {
  const deadline = AbortSignal.timeout(req.timeoutMs);
  const scrub = (s: string) => (req.secret ? s.split(req.secret).join("[redacted]") : s);
  let res: Response;
  try {
    res = await fetch(url, {
      method: req.method ?? "GET",
      headers: { accept: "application/json", ...req.headers },
      ...(req.body === undefined ? {} : { body: JSON.stringify(req.body) }),
      redirect: "error",
      signal: AbortSignal.any([signal, deadline]),
    });
  } catch (e) {
    throw failure(e, signal, deadline, req.timeoutMs, scrub);
  }
  let text: string;
  try {
    text = await res.text();
  } catch (e) {
    throw failure(e, signal, deadline, req.timeoutMs, scrub);
  }
  if (!res.ok) {
    // Quoted: the body is the provider's words, and the reason is shown in web_search's own text.
    const body = scrub(text).replace(/\s+/g, " ").trim().slice(0, BODY_CHARS);
    throw new ProviderError(`HTTP ${res.status}${body ? `: ${JSON.stringify(body)}` : ""}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderError("the answer is not JSON");
  }
}

function failure(
  e: unknown,
  signal: AbortSignal,
  deadline: AbortSignal,
  timeoutMs: number,
  scrub: (s: string) => string,
): Error {
  if (signal.aborted) return new NbError("aborted", "web_search was aborted");
  if (deadline.aborted) return new ProviderError(`timeout: no answer within ${timeoutMs} ms`);
  const err = e as Error & { cause?: { code?: string; message?: string } };
  const why = err.cause?.code ?? err.cause?.message ?? err.message;
  return new ProviderError(scrub(`could not connect: ${why}`));
}
