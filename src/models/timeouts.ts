import {
  APICallError,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type LanguageModelV3StreamPart,
  type LanguageModelV3StreamResult,
} from "@ai-sdk/provider";
import type { ProviderTimeouts } from "./config.js";

/**
 * A provider that stayed silent too long. It is a retryable `APICallError`, so every retry policy
 * (ours and the AI SDK's) treats it like any other transient provider failure.
 */
export class ModelTimeoutError extends APICallError {
  constructor(message: string, url: string) {
    super({ message, url, requestBodyValues: {}, isRetryable: true });
  }
}

/** True when a provider call ended on one of our timeouts. */
export function isModelTimeout(e: unknown): e is ModelTimeoutError {
  return e instanceof ModelTimeoutError;
}

/** Where a timeout happened, for its message: the provider's label, its URL and its config path. */
export interface TimeoutSite {
  /** `<kind> (<host>)`, as in every provider error. */
  label: string;
  url: string;
  /** JSON path of the provider's `timeouts` in config, named in the message so the user can raise it. */
  setting: string;
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** One timer at a time; when it fires, the call's own abort controller cancels the request. */
class Watchdog {
  fired: ModelTimeoutError | null = null;
  readonly expired: Promise<never>;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private fail!: (e: ModelTimeoutError) => void;

  constructor(private readonly controller: AbortController) {
    this.expired = new Promise<never>((_, reject) => {
      this.fail = reject;
    });
    // Nobody may be racing it when it fires (between reads); the rejection is observed by the next race.
    this.expired.catch(() => {});
  }

  arm(ms: number, make: () => ModelTimeoutError): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.fired = make();
      this.controller.abort(this.fired);
      this.fail(this.fired);
    }, ms);
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}

/** An abort controller for one call that follows the caller's signal; `release` drops the link. */
function linkedController(signal: AbortSignal | undefined): {
  controller: AbortController;
  release: () => void;
} {
  const controller = new AbortController();
  if (!signal) return { controller, release: () => {} };
  const follow = () => controller.abort(signal.reason);
  if (signal.aborted) follow();
  else signal.addEventListener("abort", follow, { once: true });
  return { controller, release: () => signal.removeEventListener("abort", follow) };
}

/**
 * Wrap a provider model with timeouts: a stream must send its first chunk within `firstChunkMs` of
 * the request (connecting included) and may then stay silent at most `idleMs` between chunks; a
 * call that is not streamed must finish within `generateMs`. Every chunk the server sends counts
 * (also keep-alive and status events the SDK otherwise drops), so a slow but live server never
 * times out. On expiry the request is aborted and the call fails with a `ModelTimeoutError`.
 */
export function withTimeouts(
  model: LanguageModelV3,
  t: ProviderTimeouts,
  site: TimeoutSite,
): LanguageModelV3 {
  const timeout = (what: string, key: keyof ProviderTimeouts) =>
    new ModelTimeoutError(
      `${site.label}: timeout: ${what} ${seconds(t[key])} (${site.setting}.${key})`,
      site.url,
    );

  const doStream = async (options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> => {
    const { controller, release } = linkedController(options.abortSignal);
    const dog = new Watchdog(controller);
    const done = () => {
      dog.stop();
      release();
    };
    dog.arm(t.firstChunkMs, () => timeout("no answer within", "firstChunkMs"));
    let result: LanguageModelV3StreamResult;
    try {
      // Raw chunks are what prove the server is alive; they are passed on only if the caller asked.
      const call = model.doStream({ ...options, abortSignal: controller.signal, includeRawChunks: true });
      result = await Promise.race([call, dog.expired]);
    } catch (e) {
      done();
      throw dog.fired ?? e;
    }
    const reader = result.stream.getReader();
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      async pull(out) {
        for (;;) {
          let next: Awaited<ReturnType<typeof reader.read>>;
          try {
            next = await Promise.race([reader.read(), dog.expired]);
          } catch (e) {
            done();
            reader.cancel().catch(() => {});
            out.error(dog.fired ?? e);
            return;
          }
          if (next.done) {
            done();
            out.close();
            return;
          }
          const part = next.value;
          // `stream-start` is made by the SDK itself, before the server has said anything.
          if (part.type !== "stream-start") {
            dog.arm(t.idleMs, () => timeout("the stream stalled: no data for", "idleMs"));
          }
          if (part.type === "raw" && !options.includeRawChunks) continue;
          out.enqueue(part);
          return;
        }
      },
      cancel(reason) {
        done();
        return reader.cancel(reason);
      },
    });
    return { ...result, stream };
  };

  const doGenerate: LanguageModelV3["doGenerate"] = async (options) => {
    const { controller, release } = linkedController(options.abortSignal);
    const dog = new Watchdog(controller);
    dog.arm(t.generateMs, () => timeout("no complete answer within", "generateMs"));
    try {
      return await Promise.race([
        model.doGenerate({ ...options, abortSignal: controller.signal }),
        dog.expired,
      ]);
    } catch (e) {
      throw dog.fired ?? e;
    } finally {
      dog.stop();
      release();
    }
  };

  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate,
    doStream,
  };
}
