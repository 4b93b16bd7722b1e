import {
  APICallError,
  getErrorMessage,
  type LanguageModelV3,
  type LanguageModelV3StreamPart,
  type LanguageModelV3StreamResult,
} from "@ai-sdk/provider";

/** The host a provider error names: from the request URL when there is one, else as given. */
function hostOf(url: string, fallback: string): string {
  try {
    return new URL(url).host || fallback;
  } catch {
    return fallback;
  }
}

/** `<kind> (<host>)`, how every provider error and timeout starts. */
export function providerLabel(kind: string, url: string): string {
  return `${kind} (${hostOf(url, url)})`;
}

function labelled(e: unknown, kind: string, fallbackUrl: string): unknown {
  if (APICallError.isInstance(e)) {
    const status = e.statusCode === undefined ? "" : `HTTP ${e.statusCode} `;
    const text = e.message.split("\n")[0].trim();
    return new APICallError({
      message: `${providerLabel(kind, e.url || fallbackUrl)}: ${status}${text}`.trimEnd(),
      url: e.url,
      requestBodyValues: e.requestBodyValues,
      statusCode: e.statusCode,
      responseHeaders: e.responseHeaders,
      responseBody: e.responseBody,
      isRetryable: e.isRetryable,
      data: e.data,
      cause: e.cause,
    });
  }
  // An error part of a stream may be a plain object (an OpenAI-style `{message, type}`).
  if (e && typeof e === "object" && !(e instanceof Error)) {
    return new Error(`${providerLabel(kind, fallbackUrl)}: ${getErrorMessage(e)}`);
  }
  return e;
}

/**
 * Wrap a provider model so that its errors say which provider and host failed and with which HTTP
 * status (`openai-compatible (api.example.com): HTTP 429 rate limited`); an `APICallError` stays
 * one, retryability and headers included, so retry decisions are unchanged.
 */
export function withProviderLabel(model: LanguageModelV3, kind: string, url: string): LanguageModelV3 {
  const guard = async <T>(call: () => PromiseLike<T>): Promise<T> => {
    try {
      return await call();
    } catch (e) {
      throw labelled(e, kind, url);
    }
  };
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate: (options) => guard(() => model.doGenerate(options)),
    doStream: async (options): Promise<LanguageModelV3StreamResult> => {
      const result = await guard(() => model.doStream(options));
      const reader = result.stream.getReader();
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        async pull(controller) {
          try {
            const { done, value } = await reader.read();
            if (done) controller.close();
            else
              controller.enqueue(
                value.type === "error" ? { ...value, error: labelled(value.error, kind, url) } : value,
              );
          } catch (e) {
            controller.error(labelled(e, kind, url));
          }
        },
        cancel: (reason) => reader.cancel(reason),
      });
      return { ...result, stream };
    },
  };
}
