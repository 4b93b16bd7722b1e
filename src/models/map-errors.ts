import type {
  LanguageModelV3,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
} from "@ai-sdk/provider";

/**
 * Wrap a model so that every error it raises — thrown by a call, thrown while its stream is read,
 * or sent as an `error` part of the stream — passes through `map` first.
 */
export function mapModelErrors(model: LanguageModelV3, map: (e: unknown) => unknown): LanguageModelV3 {
  const guard = async <T>(call: () => PromiseLike<T>): Promise<T> => {
    try {
      return await call();
    } catch (e) {
      throw map(e);
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
            else controller.enqueue(value.type === "error" ? { ...value, error: map(value.error) } : value);
          } catch (e) {
            controller.error(map(e));
          }
        },
        cancel: (reason) => reader.cancel(reason),
      });
      return { ...result, stream };
    },
  };
}
