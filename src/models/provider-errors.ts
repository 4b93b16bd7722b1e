import { APICallError, getErrorMessage, type LanguageModelV3 } from "@ai-sdk/provider";
import { mapModelErrors } from "./map-errors.js";

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

/** How servers say a model cannot take tools (Ollama, vLLM, LM Studio, OpenAI-compatible gateways). */
const NO_TOOLS =
  /(does not|doesn't|do not|cannot|can't) support (tools|tool calls|tool use|function calling|functions)|(tools?|tool calls|function calling|tool_choice) (is |are )?not supported/i;

/** True when a provider's error message says the model cannot take tools. */
export function toolsUnsupported(message: string): boolean {
  return NO_TOOLS.test(message);
}

/** What a session needs to hear when its model cannot take tools. */
export const NO_TOOLS_HINT =
  "this model cannot call tools, which NeuroBook's agents need: choose another model (nbook models test <ref> checks one)";

function labelled(e: unknown, kind: string, fallbackUrl: string): unknown {
  if (APICallError.isInstance(e)) {
    const status = e.statusCode === undefined ? "" : `HTTP ${e.statusCode} `;
    const first = e.message.split("\n")[0].trim();
    const body = e.responseBody ?? "";
    const noTools = toolsUnsupported(first) || toolsUnsupported(body);
    const text = noTools ? `${first} (${NO_TOOLS_HINT})` : first;
    return new APICallError({
      message: `${providerLabel(kind, e.url || fallbackUrl)}: ${status}${text}`.trimEnd(),
      url: e.url,
      requestBodyValues: e.requestBodyValues,
      statusCode: e.statusCode,
      responseHeaders: e.responseHeaders,
      responseBody: e.responseBody,
      // Asking again cannot give a model tools.
      isRetryable: noTools ? false : e.isRetryable,
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
  return mapModelErrors(model, (e) => labelled(e, kind, url));
}
