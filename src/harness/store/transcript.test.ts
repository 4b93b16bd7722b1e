import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { z } from "zod";
import { exportJsonl, exportMarkdown, renderTranscript, SessionStore } from "./index.js";

let dir: string;
let store: SessionStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "nb-transcript-"));
  store = SessionStore.open(join(dir, "agent.sqlite"));
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function sessionWithEveryKind() {
  const s = store.createSession({
    profile: { key: "leader.default", initial: z.object({}) },
    title: "All kinds",
  });
  store.append(s.id, { kind: "run_start", data: { runId: "r1", invocation: "prompt" } });
  store.append(s.id, {
    kind: "compaction",
    data: { summary: "Earlier: the outline was agreed.", firstKeptEntryId: null },
  });
  store.append(s.id, { kind: "user", data: { text: "steer this way", intent: "steer" } });
  store.commitStep(s.id, [
    {
      kind: "assistant",
      data: {
        text: "Asking, then failing a read.",
        toolCalls: [
          { id: "q1", key: "request_user_input", input: { question: "Which POV?" } },
          { id: "r1", key: "read", input: { path: "missing.md" } },
        ],
      },
    },
    {
      kind: "tool_result",
      data: {
        callId: "r1",
        key: "read",
        ok: false,
        text: "",
        error: { code: "not_found", message: "no such file" },
      },
    },
    {
      kind: "user_input_request",
      data: { callId: "q1", question: "Which POV?", choices: ["first", "third"] },
    },
  ]);
  store.commitStep(s.id, [
    { kind: "user_input_answer", data: { callId: "q1", answer: "third" } },
    {
      kind: "tool_result",
      data: { callId: "q1", key: "request_user_input", ok: true, text: "Answer: third\n```" },
    },
    { kind: "assistant", data: { text: "Code:\n```ts\nx\n```", status: "partial" } },
    { kind: "run_error", data: { runId: "r1", error: { code: "io_error", message: "stream cut" } } },
  ]);
  return store.session(s.id);
}

it("renders every entry kind in the readable transcript", () => {
  const s = sessionWithEveryKind();
  const out = renderTranscript(s, store.activePath(s.id));
  expect(out).toContain("— run r1 started (prompt)");
  expect(out).toContain("  │ Earlier: the outline was agreed.");
  expect(out).toContain("user (steer): steer this way");
  expect(out).toContain('→ read {"path":"missing.md"} — error [not_found]: no such file');
  expect(out).toContain("→ request_user_input");
  expect(out).toContain("ok (2 lines): Answer: third");
  expect(out).toContain("? Which POV? [first | third]");
  expect(out).toContain("? answer: third");
  expect(out).toContain("assistant [partial]: Code:");
  expect(out).toContain("— run r1 error [io_error]: stream cut");
});

it("fences Markdown export safely and keeps JSONL one object per line", () => {
  const s = sessionWithEveryKind();
  const path = store.activePath(s.id);
  const md = exportMarkdown(s, path);
  expect(md).toContain("## Assistant (partial)");
  expect(md).toContain("Error [not_found]:");
  expect(md).toContain("> **Question:** Which POV?");
  expect(md).toContain("````\nAnswer: third\n```\n````");
  const jsonl = exportJsonl(s, store.allEntries(s.id), store.approvals(s.id)).trim().split("\n");
  expect(jsonl).toHaveLength(1 + path.length);
  const entries = jsonl.slice(1).map((l) => JSON.parse(l));
  expect(entries.map((e) => e.id)).toEqual(path.map((e) => e.id));
  expect(entries[entries.length - 1].data).toEqual(path[path.length - 1].data);
});
