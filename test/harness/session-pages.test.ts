import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { NbError } from "../../src/core/errors.js";
import { type Entry, type EntryInput, SessionStore } from "../../src/harness/store/index.js";

const profile = { key: "writer", initial: z.object({}).strict() };
const user = (text: string): EntryInput => ({ kind: "user", data: { text } });
const texts = (entries: Entry[]) => entries.map((e) => (e.kind === "user" ? e.data.text : e.kind));

let dir: string;
let store: SessionStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "nb-pages-"));
  store = SessionStore.open(join(dir, "agent.sqlite"));
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function sessionOf(n: number): string {
  const s = store.createSession({ profile });
  for (let i = 0; i < n; i++) store.append(s.id, user(`m${i}`));
  return s.id;
}

/** Read the whole branch newest first, page by page, calling `between` before each older page. */
function readBack(id: string, limit: number, between: (page: number) => void = () => {}): Entry[] {
  let page = store.page(id, { limit });
  const out = [...page.entries];
  for (let n = 1; page.older !== null; n++) {
    between(n);
    page = store.page(id, { before: page.older, limit });
    out.unshift(...page.entries);
  }
  return out;
}

describe("paging the active branch", () => {
  it("pages newest first, root first within a page, with exact cursors", () => {
    const id = sessionOf(25);
    const first = store.page(id, { limit: 10 });
    expect(texts(first.entries)).toEqual(Array.from({ length: 10 }, (_, i) => `m${15 + i}`));
    expect(first.newer).toBeNull();
    expect(first.older).toBe(first.entries[0].id);
    const second = store.page(id, { before: first.older!, limit: 10 });
    expect(texts(second.entries)).toEqual(Array.from({ length: 10 }, (_, i) => `m${5 + i}`));
    const last = store.page(id, { before: second.older!, limit: 10 });
    expect(texts(last.entries)).toEqual(["m0", "m1", "m2", "m3", "m4"]);
    expect(last.older).toBeNull();
    expect(readBack(id, 7)).toEqual(store.activePath(id));
  });

  it("skips and repeats nothing while entries arrive between pages", () => {
    const id = sessionOf(60);
    const before = store.activePath(id);
    let added = 0;
    const seen = readBack(id, 8, () => {
      for (let i = 0; i < 3; i++) store.append(id, user(`new${added++}`));
    });
    expect(added).toBeGreaterThan(10);
    expect(seen.map((e) => e.id)).toEqual(before.map((e) => e.id));
    // The entries that arrived are read forward from the newest one seen, again exactly once each.
    const forward: Entry[] = [];
    let after = seen[seen.length - 1].id;
    for (;;) {
      const p = store.page(id, { after, limit: 4 });
      forward.push(...p.entries);
      if (p.newer === null) break;
      after = p.newer;
    }
    expect(texts(forward)).toEqual(Array.from({ length: added }, (_, i) => `new${i}`));
    expect([...seen, ...forward].map((e) => e.id)).toEqual(store.activePath(id).map((e) => e.id));
  });

  it("follows the active branch across branch points, and says when `after` left it", () => {
    const id = sessionOf(6);
    const path = store.activePath(id);
    store.setLeaf(id, path[2].id);
    for (let i = 0; i < 5; i++) store.append(id, user(`b${i}`));
    const branch = store.activePath(id);
    expect(texts(branch)).toEqual(["m0", "m1", "m2", "b0", "b1", "b2", "b3", "b4"]);
    expect(readBack(id, 3).map((e) => e.id)).toEqual(branch.map((e) => e.id));
    const forward = store.page(id, { after: path[1].id, limit: 4 });
    expect(texts(forward.entries)).toEqual(["m2", "b0", "b1", "b2"]);
    expect(forward.newer).toBe(forward.entries[3].id);
    // m5 was on the old branch: reading forward from it cannot join the new one.
    let code = "";
    try {
      store.page(id, { after: path[5].id });
    } catch (e) {
      code = (e as NbError).code;
    }
    expect(code).toBe("conflict");
    // An older page of an entry off the branch is still its own ancestors.
    expect(texts(store.page(id, { before: path[5].id, limit: 2 }).entries)).toEqual(["m3", "m4"]);
  });

  it("refuses a cursor from another session, both cursors at once, and a page too large", () => {
    const a = sessionOf(3);
    const b = sessionOf(3);
    const foreign = store.activePath(b)[1].id;
    const codeOf = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return (e as NbError).code;
      }
      return "none";
    };
    expect(codeOf(() => store.page(a, { before: foreign }))).toBe("not_found");
    expect(codeOf(() => store.page(a, { before: "1", after: "2" }))).toBe("invalid_input");
    expect(codeOf(() => store.page(a, { limit: 501 }))).toBe("invalid_input");
    expect(store.page(sessionOf(0)).entries).toEqual([]);
  });
});

it("reads the entries since the latest assistant message back by the page, not the whole branch", () => {
  const id = sessionOf(5);
  const asked = store.append(id, {
    kind: "assistant",
    data: { text: "asking", toolCalls: [{ id: "q", key: "request_user_input", input: {} }] },
  });
  store.append(id, { kind: "user_input_request", data: { callId: "q", question: "Which?" } });
  for (let i = 0; i < 250; i++) store.append(id, user(`later ${i}`));
  const since = store.sinceLastAssistant(id);
  expect(since[0].id).toBe(asked.id);
  expect(since).toHaveLength(252);
  expect(since.map((e) => e.id)).toEqual(
    store
      .activePath(id)
      .slice(5)
      .map((e) => e.id),
  );
  expect(store.sinceLastAssistant(sessionOf(3))).toHaveLength(3);
});

describe("per-session counters", () => {
  it("counts model calls over every branch as entries are appended", () => {
    const id = sessionOf(0);
    store.append(id, { kind: "assistant", data: { text: "one" } });
    const fork = store.append(id, user("go on")).id;
    store.append(id, { kind: "assistant", data: { text: "two" } });
    store.setLeaf(id, fork);
    store.commitStep(id, [
      { kind: "assistant", data: { text: "three" } },
      { kind: "compaction", data: { summary: "s", firstKeptEntryId: null } },
    ]);
    const counted = store
      .allEntries(id)
      .filter((e) => e.kind === "assistant" || e.kind === "compaction").length;
    expect(counted).toBe(4);
    expect(store.modelCalls(id)).toBe(4);
    expect(store.modelCalls(sessionOf(2))).toBe(0);
  });

  it("counts the calls of a store written before the counters, once, as it is upgraded", () => {
    const id = sessionOf(1);
    store.append(id, { kind: "assistant", data: { text: "one" } });
    store.append(id, { kind: "assistant", data: { text: "two" } });
    store.close();
    const file = join(dir, "agent.sqlite");
    const db = new Database(file);
    db.exec("DROP TABLE session_counters");
    db.pragma("user_version = 4");
    db.close();
    store = SessionStore.open(file);
    expect(store.modelCalls(id)).toBe(2);
    store.append(id, { kind: "assistant", data: { text: "three" } });
    expect(store.modelCalls(id)).toBe(3);
  });
});
