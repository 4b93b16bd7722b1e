import { describe, expect, it } from "vitest";
import { toMessages } from "./context.js";
import type { Entry, EntryInput } from "./store/schema.js";

let nextId = 0;
function entry(input: EntryInput): Entry {
  nextId++;
  return {
    id: String(nextId),
    sessionId: "s",
    parentId: null,
    depth: nextId,
    createdAt: "2026-01-01T00:00:00.000Z",
    ...input,
  } as Entry;
}

describe("toMessages", () => {
  const history = [
    entry({ kind: "run_start", data: { runId: "r", invocation: "prompt" } }),
    entry({ kind: "user", data: { text: "Read both", intent: "prompt" } }),
    entry({
      kind: "assistant",
      data: {
        text: "Reading.",
        toolCalls: [
          { id: "c1", key: "read", input: { path: "a.md" } },
          { id: "c2", key: "read", input: { path: "b.md" } },
        ],
      },
    }),
    entry({ kind: "tool_result", data: { callId: "c1", key: "read", ok: true, text: "A" } }),
    entry({ kind: "task_list", data: { tasks: [] } }),
    entry({
      kind: "tool_result",
      data: {
        callId: "c2",
        key: "read",
        ok: false,
        text: "missing",
        error: { code: "not_found", message: "No b.md" },
      },
    }),
    entry({ kind: "user", data: { text: "Also c", intent: "steer" } }),
  ];

  it("turns entries into provider messages, one tool message per run of results", () => {
    expect(toMessages(history)).toEqual([
      { role: "user", content: [{ type: "text", text: "Read both" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Reading." },
          { type: "tool-call", toolCallId: "c1", toolName: "read", input: { path: "a.md" } },
          { type: "tool-call", toolCallId: "c2", toolName: "read", input: { path: "b.md" } },
        ],
      },
      {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "c1", toolName: "read", output: { type: "text", value: "A" } },
          {
            type: "tool-result",
            toolCallId: "c2",
            toolName: "read",
            output: { type: "error-text", value: "Error [not_found]: No b.md" },
          },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "text",
            text: "[The user sent this while you were working; take it into account now]\nAlso c",
          },
        ],
      },
    ]);
  });

  it("converts each entry once: a later step reuses the same messages and only groups anew", () => {
    const first = toMessages(history.slice(0, 4));
    const second = toMessages(history);
    expect(second[0]).toBe(first[0]);
    expect(second[1]).toBe(first[1]);
    expect(second[2]).not.toBe(first[2]);
    expect(first[2].content).toHaveLength(1);
  });
});
