import { APICallError, getErrorMessage } from "@ai-sdk/provider";
import { RetryError } from "ai";

const INITIAL_DELAY_MS = 2_000;
const BACKOFF_FACTOR = 2;
// A server asking to wait longer than this gets the exponential delay instead (the AI SDK's rule).
const MAX_HEADER_DELAY_MS = 60_000;

function isAbortError(e: unknown): boolean {
  return (
    (e instanceof Error || e instanceof DOMException) &&
    (e.name === "AbortError" || e.name === "ResponseAborted" || e.name === "TimeoutError")
  );
}

/** A provider failure worth another attempt: a retryable HTTP status, a network error, a timeout. */
export function isTransient(error: unknown): boolean {
  return APICallError.isInstance(error) && error.isRetryable;
}

/** The wait the server asked for (`retry-after-ms`, `retry-after` seconds or date), else the backoff delay. */
function retryDelayMs(error: unknown, backoffMs: number): number {
  const source = APICallError.isInstance(error)
    ? error
    : error instanceof Error && APICallError.isInstance(error.cause)
      ? error.cause
      : null;
  const headers = source?.responseHeaders;
  if (!headers) return backoffMs;
  let ms: number | undefined;
  const afterMs = headers["retry-after-ms"];
  if (afterMs && !Number.isNaN(Number.parseFloat(afterMs))) ms = Number.parseFloat(afterMs);
  const after = headers["retry-after"];
  if (after && ms === undefined) {
    const seconds = Number.parseFloat(after);
    ms = Number.isNaN(seconds) ? Date.parse(after) - Date.now() : seconds * 1000;
  }
  if (ms !== undefined && !Number.isNaN(ms) && ms >= 0 && (ms < MAX_HEADER_DELAY_MS || ms < backoffMs))
    return ms;
  return backoffMs;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const abortError = () => new DOMException("The operation was aborted", "AbortError");
    if (signal?.aborted) return reject(abortError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Start a model call with the AI SDK's retry policy (what `streamText` applies to `doStream`):
 * transient provider errors (timeouts included) are retried up to `maxRetries` times with exponential
 * backoff from 2 s, honouring retry-after headers; aborts are never retried; after retries, a
 * `RetryError` lists them.
 */
export async function withRetries<T>(
  start: () => PromiseLike<T>,
  opts: { maxRetries: number; signal?: AbortSignal },
): Promise<T> {
  const errors: unknown[] = [];
  let backoffMs = INITIAL_DELAY_MS;
  for (;;) {
    try {
      return await start();
    } catch (error) {
      if (isAbortError(error) || opts.maxRetries === 0) throw error;
      errors.push(error);
      const message = getErrorMessage(error);
      if (errors.length > opts.maxRetries) {
        throw new RetryError({
          message: `Failed after ${errors.length} attempts. Last error: ${message}`,
          reason: "maxRetriesExceeded",
          errors,
        });
      }
      if (!isTransient(error)) {
        if (errors.length === 1) throw error;
        throw new RetryError({
          message: `Failed after ${errors.length} attempts with non-retryable error: '${message}'`,
          reason: "errorNotRetryable",
          errors,
        });
      }
      await sleep(retryDelayMs(error, backoffMs), opts.signal);
      backoffMs *= BACKOFF_FACTOR;
    }
  }
}
