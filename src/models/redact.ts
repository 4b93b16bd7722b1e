import { APICallError, type LanguageModelV3 } from "@ai-sdk/provider";
import { mapModelErrors } from "./map-errors.js";

/** What replaces an API key wherever a provider echoes it back. */
export const REDACTED = "[redacted]";

function scrubValue(value: unknown, secret: string): unknown {
  if (typeof value === "string") return value.split(secret).join(REDACTED);
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, secret));
  if (value && typeof value === "object" && !(value instanceof Error)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubValue(v, secret)]));
  }
  return value;
}

function mentions(e: unknown, secret: string): boolean {
  if (e instanceof Error) {
    const api = APICallError.isInstance(e) ? [e.url, e.responseBody, JSON.stringify(e.data) ?? ""] : [];
    return [e.message, ...api].some((s) => s?.includes(secret));
  }
  return (JSON.stringify(e) ?? "").includes(secret);
}

/**
 * The same error without the secret. Errors that do not mention it are returned as they are (so
 * abort and retry decisions see the original); an APICallError stays one, retryability included.
 */
function scrubError(e: unknown, secret: string): unknown {
  if (!mentions(e, secret)) return e;
  const scrub = (s: string) => s.split(secret).join(REDACTED);
  if (APICallError.isInstance(e)) {
    return new APICallError({
      message: scrub(e.message),
      url: scrub(e.url),
      requestBodyValues: e.requestBodyValues,
      statusCode: e.statusCode,
      responseHeaders: e.responseHeaders,
      responseBody: e.responseBody === undefined ? undefined : scrub(e.responseBody),
      isRetryable: e.isRetryable,
      data: scrubValue(e.data, secret),
    });
  }
  if (e instanceof Error) {
    const copy = new Error(scrub(e.message));
    copy.name = e.name;
    return copy;
  }
  return scrubValue(e, secret);
}

/**
 * Wrap a provider model so that no error it raises (thrown, or an `error` part of its stream)
 * carries the API key: some OpenAI-compatible servers echo the key they were sent, and error
 * messages end up in sessions, exports and the terminal.
 */
export function withKeyRedacted(model: LanguageModelV3, secret: string): LanguageModelV3 {
  return mapModelErrors(model, (e) => scrubError(e, secret));
}
