// The workbench's pure logic, run under Node: the Markdown preview never lets a file's markup
// through, word counts agree with the server's tree, and the chat is rebuilt correctly from a
// stored transcript and from live events.
import { describe, expect, it } from "vitest";
import { countWords as serverCountWords } from "../../src/core/text.js";
import { type EntryDataIn, type EntryKind, EntrySchema } from "../../src/harness/store/schema.js";
import type { Entry } from "../../web/src/api.js";
import { applyEvent, type ChatItem, entriesToItems } from "../../web/src/chat-items.js";
import { countWords, renderMarkdown } from "../../web/src/markdown.js";

describe("renderMarkdown", () => {
  it("renders headings, emphasis, lists, quotes and code", () => {
    const html = renderMarkdown(
      "# Title\n\nSome *soft* and **bold** `code`.\n\n- one\n- two\n\n> said\n\n```\nx < y\n```",
    );
    expect(html).toContain("<h1>Title</h1>");
    expect(html).toContain("<em>soft</em>");
    expect(html).toContain("<strong>bold</strong>");
    expect(html).toContain("<code>code</code>");
    expect(html).toContain("<ul>\n<li>one</li>\n<li>two</li>\n</ul>");
    expect(html).toContain("<blockquote>\n<p>said</p>\n</blockquote>");
    expect(html).toContain("<pre><code>x &lt; y\n</code></pre>");
  });

  it("shows raw HTML and hostile links as text, never as markup", () => {
    const html = renderMarkdown(
      '<script>alert(1)</script>\n\n<img src=x onerror="alert(2)">\n\n[click](javascript:alert(3)) and [q](x"onmouseover="y)',
    );
    expect(html).not.toMatch(/<script|<img/);
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(2)&quot;&gt;");
    // A hostile link stays text; no attribute is smuggled in.
    expect(html).toContain("[click](javascript:alert(3))");
    expect(html).not.toContain('"onmouseover');
  });

  it("leaves YAML front matter out of the preview", () => {
    expect(renderMarkdown("---\ntitle: x\n---\n# Body")).toBe("<h1>Body</h1>\n");
  });

  it("keeps a verse's hard line breaks and opens links away from the editor", () => {
    expect(renderMarkdown("The bell rang,  \nthe water rose.")).toBe(
      "<p>The bell rang,<br />\nthe water rose.</p>\n",
    );
    expect(renderMarkdown("[map](https://example.org)")).toContain(
      'target="_blank" rel="noopener noreferrer"',
    );
  });
});

describe("countWords", () => {
  it("counts each CJK character and each Latin word, as the server's tree does", () => {
    const samples = [
      "The fog had burned off by noon.",
      "Mira's sister-in-law didn't come.",
      "簿纪91年雾月12日，林岚听见了钟声。",
      "# 第一章\n\nLin 在海边。",
      "",
    ];
    expect(countWords(samples[0]!)).toBe(7);
    expect(countWords(samples[1]!)).toBe(4);
    expect(countWords(samples[3]!)).toBe(7);
    for (const s of samples) expect(countWords(s)).toBe(serverCountWords(s));
  });
});

/** A stored entry as the transcript route answers it: parsed by the entry schema, defaults applied. */
const entry = <K extends EntryKind>(id: number, kind: K, data: EntryDataIn<K>): Entry =>
  EntrySchema.parse({
    id: String(id),
    sessionId: "1",
    parentId: id === 1 ? null : String(id - 1),
    depth: id - 1,
    kind,
    data,
    createdAt: "2026-01-01T00:00:00Z",
  });

describe("entriesToItems: compaction", () => {
  it("shows the whole summary where the history was compacted", () => {
    const items = entriesToItems(
      [
        entry(1, "user", { text: "Draft it", intent: "prompt" }),
        entry(2, "compaction", {
          summary: "Mara reached the harbour.\nThe coat is grey.",
          firstKeptEntryId: "1",
        }),
      ],
      null,
    );
    expect(items.at(-1)).toEqual({
      kind: "summary",
      id: "2",
      text: "Mara reached the harbour.\nThe coat is grey.",
    });
  });
});

describe("entriesToItems", () => {
  const edit = { id: "c1", key: "edit", input: { path: "manuscript/ch1.md", edits: [] } };
  const base = [
    entry(1, "run_start", { runId: "r", invocation: "prompt" }),
    entry(2, "user", { text: "Tighten it", intent: "prompt" }),
    entry(3, "assistant", { text: "Editing.", toolCalls: [edit], status: "complete" }),
    entry(4, "approval_request", {
      callId: "c1",
      key: "edit",
      kind: "write",
      input: edit.input,
      preview: { text: "--- a\n+++ b\n-old\n+new" },
    }),
    entry(5, "run_end", { runId: "r", status: "waiting" }),
  ];

  it("shows a waiting write as an open approval with its preview and a tool card without result", () => {
    const items = entriesToItems(base, {
      approvalId: "4",
      kind: "write",
      callId: "c1",
      tool: "edit",
      input: edit.input,
      preview: "--- a\n+++ b\n-old\n+new",
    });
    // The approval stands where it happened: before the card of the call it stopped.
    expect(items.map((i) => i.kind)).toEqual(["user", "assistant", "approval", "tool"]);
    const tool = items[3] as Extract<ChatItem, { kind: "tool" }>;
    expect(tool.call).toBe("edit manuscript/ch1.md");
    expect(tool.ok).toBeUndefined();
    const ask = items[2] as Extract<ChatItem, { kind: "approval" }>;
    expect(ask.pending.approvalId).toBe("4");
    expect(ask.pending.preview).toContain("+new");
    expect(ask.settled).toBeUndefined();
  });

  it("marks the approval settled and the tool card done once decided and run", () => {
    const items = entriesToItems(
      [
        ...base,
        entry(6, "approval_decision", { approvalId: "4", callId: "c1", approved: true }),
        entry(7, "tool_result", {
          callId: "c1",
          key: "edit",
          ok: true,
          text: "Edited manuscript/ch1.md",
          details: { path: "manuscript/ch1.md", diff: "-old\n+new" },
        }),
        entry(8, "assistant", { text: "Done.", toolCalls: [], status: "complete" }),
        entry(9, "run_end", { runId: "r2", status: "completed", finalMessage: "Done." }),
      ],
      null,
    );
    const tool = items.find((i) => i.kind === "tool") as Extract<ChatItem, { kind: "tool" }>;
    expect(tool).toMatchObject({ ok: true, result: "Edited manuscript/ch1.md", diff: "-old\n+new" });
    expect(items.find((i) => i.kind === "approval")).toMatchObject({ settled: "approved" });
    expect(items.at(-1)).toMatchObject({ kind: "assistant", text: "Done." });
  });

  it("shows a rejection, a failed run and a question with its answer", () => {
    const items = entriesToItems(
      [
        ...base,
        entry(6, "approval_decision", { approvalId: "4", callId: "c1", approved: false, reason: "no" }),
        entry(7, "tool_result", {
          callId: "c1",
          key: "edit",
          ok: false,
          text: "",
          error: { code: "not_allowed", message: "rejected" },
        }),
        entry(8, "assistant", { text: "", toolCalls: [{ id: "q1", key: "request_user_input", input: {} }] }),
        entry(9, "user_input_request", { callId: "q1", question: "Which name?", choices: ["Mira", "Lin"] }),
        entry(10, "user_input_answer", { callId: "q1", answer: "Mira" }),
        entry(11, "run_error", { runId: "r2", error: { code: "timeout", message: "model timed out" } }),
      ],
      null,
    );
    expect(items.find((i) => i.kind === "approval" && i.pending.kind === "write")).toMatchObject({
      settled: "rejected",
    });
    expect(items.find((i) => i.kind === "tool" && i.callId === "c1")).toMatchObject({
      ok: false,
      result: "not_allowed: rejected",
    });
    const question = items.find((i) => i.kind === "approval" && i.pending.kind === "user_input");
    expect(question).toMatchObject({ settled: "answered", pending: { approvalId: "9" } });
    expect((question as Extract<ChatItem, { kind: "approval" }>).pending.preview).toBe(
      "Which name?\n  1. Mira\n  2. Lin",
    );
    expect(items.at(-1)).toEqual({ kind: "error", id: "11", text: "timeout: model timed out" });
  });
});

describe("applyEvent", () => {
  it("streams text into one bubble, tracks a tool call, and adds an approval once", () => {
    let items: ChatItem[] = [];
    items = applyEvent(items, { type: "text_delta", text: "The bell " });
    items = applyEvent(items, { type: "text_delta", text: "rang." });
    items = applyEvent(items, {
      type: "tool_call_start",
      callId: "c1",
      tool: "read",
      summary: "read lorebook",
    });
    items = applyEvent(items, {
      type: "tool_call_end",
      callId: "c1",
      tool: "read",
      ok: true,
      summary: "12 lines",
    });
    const pending = { approvalId: "7", kind: "write", callId: "c2", tool: "write", input: {}, preview: "+x" };
    items = applyEvent(items, { type: "approval_required", pending });
    items = applyEvent(items, { type: "approval_required", pending });
    expect(items.map((i) => i.kind)).toEqual(["assistant", "tool", "approval"]);
    expect(items[0]).toMatchObject({ text: "The bell rang." });
    expect(items[1]).toMatchObject({ call: "read lorebook", result: "12 lines", ok: true });
    const unchanged = applyEvent(items, { type: "turn_start", step: 2 });
    expect(unchanged).toBe(items);
  });
});
