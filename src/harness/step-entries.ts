import type { StepOutcome, StepPause } from "./step.js";
import type { EntryInput } from "./store/index.js";

/** The entry that records a suspended call (an approval row is created with it for writes and mode switches). */
export function requestEntry(pause: StepPause): EntryInput {
  if (pause.kind === "user_input") {
    const input = pause.call.input as { question: string; choices?: string[]; allowFreeText?: boolean };
    const data: { callId: string; question: string; choices?: string[]; allowFreeText?: boolean } = {
      callId: pause.call.id,
      question: input.question,
    };
    if (input.choices) data.choices = input.choices;
    if (input.allowFreeText !== undefined) data.allowFreeText = input.allowFreeText;
    return { kind: "user_input_request", data };
  }
  return {
    kind: "approval_request",
    data: {
      callId: pause.call.id,
      key: pause.call.key,
      kind: pause.kind,
      input: pause.call.input,
      preview: pause.preview,
    },
  };
}

/** Tool results as entries. */
export function resultEntries(results: StepOutcome["results"]): EntryInput[] {
  return results.map(({ call, result }) => ({
    kind: "tool_result" as const,
    data: result.ok
      ? {
          callId: call.id,
          key: call.key,
          ok: true,
          text: result.text,
          ...(result.details !== undefined ? { details: result.details } : {}),
          ...(result.truncated ? { truncated: true } : {}),
        }
      : { callId: call.id, key: call.key, ok: false, text: result.error.message, error: result.error },
  }));
}
