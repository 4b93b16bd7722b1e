// The chat's pure parts under Node: slash commands and their completions, the bounded window of
// entries, questions' choices, and asks placed before the card of the call they stopped.
import { describe, expect, it } from "vitest";
import type { Entry } from "../../web/src/api.js";
import { applyEvent, type ChatItem, entriesToItems, questionChoices } from "../../web/src/chat-items.js";
import { withNewer, withOlder } from "../../web/src/chat-window.js";
import { parseSlash, slashCompletions } from "../../web/src/slash.js";

const entry = (id: number, kind: string, data: Record<string, unknown>) =>
  ({
    id: String(id),
    parentId: id > 1 ? String(id - 1) : null,
    kind,
    data,
    createdAt: "",
  }) as unknown as Entry;
const run = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => entry(from + i, "user", { text: `m${from + i}` }));

describe("parseSlash", () => {
  it("reads the commands nbook chat has, and answers a mistake with the usage", () => {
    expect(parseSlash("hello /mode plan")).toBeNull();
    expect(parseSlash("/compact keep the bells")).toEqual({ cmd: "compact", focus: "keep the bells" });
    expect(parseSlash("/compact")).toEqual({ cmd: "compact", focus: "" });
    expect(parseSlash("/undo")).toEqual({ cmd: "undo" });
    expect(parseSlash("/plan")).toEqual({ cmd: "mode", mode: "plan" });
    expect(parseSlash("/mode discuss")).toEqual({ cmd: "mode", mode: "discuss" });
    expect(parseSlash("/rewind")).toEqual({ cmd: "rewind", to: null, scope: "conversation" });
    expect(parseSlash("/rewind 12 both")).toEqual({ cmd: "rewind", to: "12", scope: "both" });
    expect(parseSlash("/mode fast")).toEqual({ cmd: "usage", text: "Usage: /mode <normal|discuss|plan>" });
    expect(parseSlash("/rewind 12 all")).toMatchObject({
      cmd: "usage",
      text: expect.stringContaining("/rewind"),
    });
    expect(parseSlash("/undo now")).toEqual({ cmd: "usage", text: "Usage: /undo" });
    expect(parseSlash("/bells")).toMatchObject({
      cmd: "usage",
      text: expect.stringContaining("Unknown command /bells"),
    });
  });
});

describe("slashCompletions", () => {
  const points = [
    { entryId: "3", message: "first" },
    { entryId: "9", message: "second" },
  ];
  it("offers commands by prefix, then modes, then rewind points newest first", () => {
    expect(slashCompletions("/", []).map((c) => c.label)).toEqual([
      "/compact",
      "/undo",
      "/rewind",
      "/mode",
      "/plan",
    ]);
    expect(slashCompletions("/re", []).map((c) => c.value)).toEqual(["/rewind "]);
    expect(slashCompletions("/mode ", []).map((c) => c.value)).toEqual([
      "/mode normal",
      "/mode discuss",
      "/mode plan",
    ]);
    expect(slashCompletions("/mode d", []).map((c) => c.value)).toEqual(["/mode discuss"]);
    expect(slashCompletions("/rewind ", points).map((c) => c.value)).toEqual(["/rewind 9", "/rewind 3"]);
  });
  it("offers nothing for a message, a finished command or one with its arguments", () => {
    expect(slashCompletions("hello", [])).toEqual([]);
    expect(slashCompletions("/undo", [])).toEqual([]);
    expect(slashCompletions("/mode discuss", [])).toEqual([]);
    expect(slashCompletions("/rewind 9 files", points)).toEqual([]);
  });
});

describe("the chat window", () => {
  it("drops the newest entries past the cap when older ones are read, and the reverse", () => {
    const w = { entries: run(201, 300), older: "201", newer: null };
    const up = withOlder(w, run(101, 200), "101", 150);
    expect(up.entries.map((e) => e.id)).toEqual(run(101, 250).map((e) => e.id));
    expect(up).toMatchObject({ older: "101", newer: "250" });
    const down = withNewer(up, run(251, 300), null, 150);
    expect(down.entries.map((e) => e.id)).toEqual(run(151, 300).map((e) => e.id));
    expect(down).toMatchObject({ older: "151", newer: null });
    expect(withOlder(w, run(181, 200), null, 150)).toMatchObject({ older: null, newer: null });
  });
});

describe("asks in the order they happened", () => {
  it("puts a live approval before the card of the call it stopped", () => {
    let items: ChatItem[] = [];
    items = applyEvent(items, { type: "tool_call_start", callId: "c1", summary: "write notes.md" });
    items = applyEvent(items, {
      type: "approval_required",
      pending: { approvalId: "5", kind: "write", callId: "c1", tool: "write", input: {}, preview: "+x" },
    });
    items = applyEvent(items, { type: "tool_call_end", callId: "c1", ok: true, summary: "Created notes.md" });
    expect(items.map((i) => i.kind)).toEqual(["approval", "tool"]);
    expect(items[1]).toMatchObject({ result: "Created notes.md" });
  });

  it("gives a stored question its choices, and a live error its own kind", () => {
    const items = entriesToItems(
      [
        entry(1, "assistant", { text: "", toolCalls: [{ id: "q1", key: "request_user_input", input: {} }] }),
        entry(2, "user_input_request", {
          callId: "q1",
          question: "Which?",
          choices: ["A", "B"],
          allowFreeText: false,
        }),
      ],
      null,
    );
    const ask = items[0] as Extract<ChatItem, { kind: "approval" }>;
    expect(items.map((i) => i.kind)).toEqual(["approval", "tool"]);
    expect(questionChoices(ask.pending)).toEqual({ choices: ["A", "B"], freeText: false });
    expect(questionChoices({ ...ask.pending, input: {} })).toEqual({ choices: [], freeText: true });
    const failed = applyEvent([], { type: "error", error: { code: "internal", message: "boom" } });
    expect(failed).toEqual([{ kind: "error", id: expect.any(String), text: "internal: boom" }]);
  });
});
