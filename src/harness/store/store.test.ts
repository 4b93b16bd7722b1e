import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { type EntryInput, SessionStore } from "./index.js";

const writer = { key: "writer", initial: z.object({}).strict() };
const director = {
  key: "director",
  initial: z.object({ projectRoot: z.string(), mode: z.enum(["writing", "rp"]).optional() }).strict(),
};

let dir: string;
let file: string;
let store: SessionStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "nb-store-"));
  file = join(dir, "agent.sqlite");
  store = SessionStore.open(file);
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof NbError) return e.code;
    throw e;
  }
  throw new Error("expected an NbError");
}

const user = (text: string): EntryInput => ({ kind: "user", data: { text } });
const say = (text: string, calls: { id: string; key: string }[] = []): EntryInput => ({
  kind: "assistant",
  data: { text, toolCalls: calls.map((c) => ({ ...c, input: { path: "a.md" } })) },
});
const result = (callId: string, key: string, text = "ok"): EntryInput => ({
  kind: "tool_result",
  data: { callId, key, ok: true, text },
});

describe("sessions", () => {
  it("creates a session with a validated initial and a pinned model reference", () => {
    const s = store.createSession({
      profile: director,
      project: "novel",
      title: "Plot pass",
      mode: "plan",
      model: "openai/gpt-4o-mini",
      initial: { projectRoot: "novel" },
    });
    expect(s).toMatchObject({
      profileKey: "director",
      project: "novel",
      title: "Plot pass",
      mode: "plan",
      model: "openai/gpt-4o-mini",
      initial: { projectRoot: "novel" },
      status: "idle",
      leafId: null,
      entryCount: 0,
    });
    expect(store.session(s.id)).toEqual(s);
  });

  it("rejects an initial that does not fit the profile, with pointers under /initial", () => {
    try {
      store.createSession({ profile: director, initial: { mode: "poetry", extra: 1 } });
      throw new Error("expected failure");
    } catch (e) {
      expect(e).toBeInstanceOf(NbError);
      const pointers = (e as NbError).fields?.map((f) => f.pointer).sort();
      expect(pointers).toEqual(["/initial/extra", "/initial/mode", "/initial/projectRoot"]);
    }
  });

  it("rejects a malformed model reference and unknown sessions", () => {
    expect(codeOf(() => store.createSession({ profile: writer, model: "gpt-4o" }))).toBe("invalid_input");
    expect(codeOf(() => store.session("42"))).toBe("not_found");
    expect(codeOf(() => store.session("../1"))).toBe("not_found");
  });

  it("lists by project, newest first", () => {
    const a = store.createSession({ profile: writer, project: "p1" });
    const b = store.createSession({ profile: writer, project: "p2" });
    const c = store.createSession({ profile: writer });
    store.append(a.id, user("bump a"));
    expect(store.listSessions().map((s) => s.id)[0]).toBe(a.id);
    expect(store.listSessions({ project: "p2" }).map((s) => s.id)).toEqual([b.id]);
    expect(store.listSessions({ project: null }).map((s) => s.id)).toEqual([c.id]);
    expect(store.listSessions({ limit: 2 }).map((s) => s.id)).toEqual([a.id, c.id]);
    expect(store.listSessions({ limit: Number.POSITIVE_INFINITY })).toHaveLength(3);
  });
});

describe("entry tree", () => {
  it("appends under the leaf and loads the active path root first", () => {
    const s = store.createSession({ profile: writer });
    const e1 = store.append(s.id, user("one"));
    const e2 = store.append(s.id, say("two"));
    expect(e1.parentId).toBeNull();
    expect(e2.parentId).toBe(e1.id);
    expect(e2.depth).toBe(1);
    expect(store.session(s.id)).toMatchObject({ leafId: e2.id, entryCount: 2 });
    expect(store.activePath(s.id).map((e) => e.id)).toEqual([e1.id, e2.id]);
  });

  it("branches from an earlier entry without losing the other branch", () => {
    const s = store.createSession({ profile: writer });
    const root = store.append(s.id, user("write chapter 1"));
    const a1 = store.append(s.id, say("first draft"));
    const a2 = store.append(s.id, user("more tension"));
    store.setLeaf(s.id, root.id);
    const b1 = store.append(s.id, say("second draft"));
    expect(b1.parentId).toBe(root.id);
    expect(store.activePath(s.id).map((e) => e.id)).toEqual([root.id, b1.id]);
    expect(store.children(root.id).map((e) => e.id)).toEqual([a1.id, b1.id]);
    store.setLeaf(s.id, a2.id);
    expect(store.activePath(s.id).map((e) => e.id)).toEqual([root.id, a1.id, a2.id]);
    expect(store.allEntries(s.id)).toHaveLength(4);
    store.setLeaf(s.id, null);
    const fresh = store.append(s.id, user("start over"));
    expect(fresh.parentId).toBeNull();
    expect(store.activePath(s.id).map((e) => e.id)).toEqual([fresh.id]);
  });

  it("refuses a leaf from another session and branching while a run is active", () => {
    const s = store.createSession({ profile: writer });
    const t = store.createSession({ profile: writer });
    const e = store.append(t.id, user("elsewhere"));
    expect(codeOf(() => store.setLeaf(s.id, e.id))).toBe("not_found");
    const own = store.append(s.id, user("mine"));
    store.setStatus(s.id, "running");
    expect(codeOf(() => store.setLeaf(s.id, own.id))).toBe("conflict");
  });

  it("validates entry data with pointers into the batch", () => {
    const s = store.createSession({ profile: writer });
    try {
      store.commitStep(s.id, [user("ok"), { kind: "assistant", data: { text: 3 } } as unknown as EntryInput]);
      throw new Error("expected failure");
    } catch (e) {
      expect((e as NbError).code).toBe("invalid_input");
      expect((e as NbError).fields?.[0].pointer).toBe("/1/data/text");
    }
    expect(codeOf(() => store.append(s.id, { kind: "nope", data: {} } as unknown as EntryInput))).toBe(
      "invalid_input",
    );
  });
});

describe("steps", () => {
  it("commits an assistant message and its results as one unit", () => {
    const s = store.createSession({ profile: writer });
    store.append(s.id, user("read both"));
    const step = store.commitStep(s.id, [
      say("reading", [
        { id: "c1", key: "read" },
        { id: "c2", key: "read" },
      ]),
      result("c1", "read"),
      result("c2", "read"),
    ]);
    expect(step.map((e) => e.kind)).toEqual(["assistant", "tool_result", "tool_result"]);
    expect(store.pendingToolCalls(s.id)).toEqual([]);
    expect(store.session(s.id).entryCount).toBe(4);
  });

  it("rolls back the whole step when an entry fails mid-step", () => {
    const s = store.createSession({ profile: writer });
    const u = store.append(s.id, user("go"));
    const item = store.enqueue(s.id, "followup", "later");
    const before = store.session(s.id);
    expect(
      codeOf(() =>
        store.commitStep(s.id, [
          { kind: "user", data: { text: "later", intent: "followup", queueItemId: item.id } },
          say("calling", [{ id: "c1", key: "read" }]),
          result("c1", "read"),
          result("c1", "read"),
        ]),
      ),
    ).toBe("invalid_input");
    expect(store.session(s.id)).toMatchObject({ leafId: u.id, entryCount: before.entryCount });
    expect(store.allEntries(s.id)).toHaveLength(1);
    expect(store.queued(s.id).map((q) => q.id)).toEqual([item.id]);
  });

  it("keeps an unanswered call visibly pending and refuses to move past it", () => {
    const s = store.createSession({ profile: writer });
    store.append(s.id, user("write"));
    const [a] = store.commitStep(s.id, [
      say("writing", [
        { id: "c1", key: "read" },
        { id: "c2", key: "write" },
      ]),
      result("c1", "read"),
    ]);
    expect(store.pendingToolCalls(s.id)).toEqual([
      { entryId: a.id, call: { id: "c2", key: "write", input: { path: "a.md" } } },
    ]);
    expect(codeOf(() => store.append(s.id, say("next")))).toBe("conflict");
    expect(codeOf(() => store.append(s.id, result("c2", "read")))).toBe("invalid_input");
    expect(codeOf(() => store.append(s.id, result("zz", "write")))).toBe("invalid_input");
    store.append(s.id, result("c2", "write"));
    expect(codeOf(() => store.append(s.id, result("c2", "write")))).toBe("invalid_input");
    expect(store.pendingToolCalls(s.id)).toEqual([]);
    store.append(s.id, say("done"));
  });

  it("closes pending calls with aborted results and rejects their approvals", () => {
    const s = store.createSession({ profile: writer, mode: "discuss" });
    store.append(s.id, user("write"));
    const [, req] = store.commitStep(s.id, [
      say("writing", [{ id: "w1", key: "write" }]),
      {
        kind: "approval_request",
        data: { callId: "w1", key: "write", input: { path: "a.md" }, preview: { text: "+new line" } },
      },
    ]);
    const closed = store.abortPendingCalls(s.id);
    expect(closed.map((e) => e.kind)).toEqual(["approval_decision", "tool_result"]);
    expect(closed[1].data).toMatchObject({ ok: false, error: { code: "aborted" } });
    expect(store.approval(req.id)).toMatchObject({ status: "rejected" });
    expect(store.pendingToolCalls(s.id)).toEqual([]);
    expect(store.abortPendingCalls(s.id)).toEqual([]);
  });
});

describe("approvals", () => {
  it("stores a pending approval with its step and settles it once", () => {
    const s = store.createSession({ profile: writer, mode: "discuss" });
    store.append(s.id, user("draft"));
    const [, req] = store.commitStep(s.id, [
      say("drafting", [{ id: "w1", key: "write" }]),
      {
        kind: "approval_request",
        data: { callId: "w1", key: "write", input: { path: "ch1.md" }, preview: { text: "--- a\n+++ b" } },
      },
    ]);
    const pending = store.pendingApprovals(s.id);
    expect(pending).toEqual([
      expect.objectContaining({
        id: req.id,
        callId: "w1",
        toolKey: "write",
        kind: "write",
        input: { path: "ch1.md" },
        preview: { text: "--- a\n+++ b" },
        status: "pending",
      }),
    ]);
    expect(store.pendingApprovals().map((a) => a.id)).toEqual([req.id]);
    const { approval, entry } = store.settleApproval(req.id, { approved: false, reason: "not yet" });
    expect(approval).toMatchObject({ status: "rejected", reason: "not yet" });
    expect(entry.kind).toBe("approval_decision");
    expect(store.pendingApprovals(s.id)).toEqual([]);
    expect(codeOf(() => store.settleApproval(req.id, { approved: true }))).toBe("conflict");
    expect(store.pendingToolCalls(s.id).map((p) => p.call.id)).toEqual(["w1"]);
  });

  it("refuses an approval for a call that is not pending", () => {
    const s = store.createSession({ profile: writer });
    store.append(s.id, user("x"));
    expect(
      codeOf(() =>
        store.append(s.id, {
          kind: "approval_request",
          data: { callId: "ghost", key: "write", input: {}, preview: { text: "" } },
        }),
      ),
    ).toBe("invalid_input");
  });
});

describe("queues", () => {
  it("keeps order per kind and survives reopening", () => {
    const s = store.createSession({ profile: writer });
    const a = store.enqueue(s.id, "steer", "s1");
    const b = store.enqueue(s.id, "followup", "f1");
    const c = store.enqueue(s.id, "steer", "s2");
    store.close();
    store = SessionStore.open(file);
    expect(store.queued(s.id, "steer").map((q) => q.text)).toEqual(["s1", "s2"]);
    expect(store.queued(s.id).map((q) => q.id)).toEqual([a.id, b.id, c.id]);
    expect(store.consumeQueued(s.id, a.id).consumed).toBe(true);
    expect(store.queued(s.id, "steer").map((q) => q.id)).toEqual([c.id]);
    expect(store.clearQueue(s.id, "steer")).toBe(1);
    expect(store.queued(s.id).map((q) => q.id)).toEqual([b.id]);
  });

  it("consumes an item with the message that delivers it, exactly once", () => {
    const s = store.createSession({ profile: writer });
    const item = store.enqueue(s.id, "followup", "then chapter 2");
    const msg = {
      kind: "user",
      data: { text: item.text, intent: "followup", queueItemId: item.id },
    } as const;
    store.append(s.id, msg);
    expect(store.queued(s.id)).toEqual([]);
    expect(codeOf(() => store.append(s.id, msg))).toBe("conflict");
    expect(store.activePath(s.id)).toHaveLength(1);
  });
});

describe("branch-local state", () => {
  it("task lists follow the branch", () => {
    const s = store.createSession({ profile: writer });
    const root = store.append(s.id, user("plan"));
    const t1 = [{ id: "1", title: "Outline", status: "in_progress" as const }];
    store.append(s.id, { kind: "task_list", data: { tasks: t1, change: "created" } });
    store.append(s.id, say("outlining"));
    const t2 = [{ id: "1", title: "Outline", status: "completed" as const }];
    const done = store.append(s.id, { kind: "task_list", data: { tasks: t2 } });
    const after = store.append(s.id, say("next"));
    expect(store.tasks(s.id)).toEqual(t2);
    store.setLeaf(s.id, root.id);
    expect(store.tasks(s.id)).toEqual([]);
    store.append(s.id, {
      kind: "task_list",
      data: { tasks: [{ id: "x", title: "Other", status: "pending" }] },
    });
    expect(store.tasks(s.id).map((t) => t.id)).toEqual(["x"]);
    store.setLeaf(s.id, after.id);
    expect(store.tasks(s.id)).toEqual(t2);
    store.setLeaf(s.id, String(Number(done.id) - 1));
    expect(store.tasks(s.id)).toEqual(t1);
  });

  it("the mode follows the branch and same-mode changes write nothing", () => {
    const s = store.createSession({ profile: writer });
    const root = store.append(s.id, user("hi"));
    expect(store.changeMode(s.id, "normal", "user")).toBeNull();
    const change = store.changeMode(s.id, "plan", "agent", "needs a plan");
    expect(change?.data).toEqual({ from: "normal", to: "plan", by: "agent", reason: "needs a plan" });
    expect(store.session(s.id).mode).toBe("plan");
    expect(
      codeOf(() =>
        store.append(s.id, { kind: "mode_change", data: { from: "normal", to: "discuss", by: "user" } }),
      ),
    ).toBe("conflict");
    store.setLeaf(s.id, root.id);
    expect(store.session(s.id).mode).toBe("normal");
    store.setLeaf(s.id, change!.id);
    expect(store.session(s.id).mode).toBe("plan");
  });
});

describe("active path loading", () => {
  it("matches a model of the tree under any sequence of appends and leaf moves, across connections", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            { arbitrary: fc.constant({ op: "append" as const }), weight: 3 },
            // n past the last entry moves the leaf before the root
            { arbitrary: fc.nat({ max: 24 }).map((n) => ({ op: "leaf" as const, n })), weight: 1 },
          ),
          {
            maxLength: 60,
          },
        ),
        (ops) => {
          const s = store.createSession({ profile: writer });
          const other = SessionStore.open(file);
          try {
            const parentOf = new Map<string, string | null>();
            const ids: string[] = [];
            let leaf: string | null = null;
            for (const [i, o] of ops.entries()) {
              if (o.op === "append") {
                const e = (i % 3 === 0 ? other : store).append(s.id, user(`m${i}`));
                parentOf.set(e.id, leaf);
                ids.push(e.id);
                leaf = e.id;
              } else {
                leaf = o.n >= ids.length ? null : ids[o.n];
                store.setLeaf(s.id, leaf);
              }
              const expected: string[] = [];
              for (let at = leaf; at !== null; at = parentOf.get(at) ?? null) expected.unshift(at);
              for (const st of [store, other]) {
                const path = st.activePath(s.id);
                expect(path.map((e) => e.id)).toEqual(expected);
                expect(path.map((e) => e.depth)).toEqual(expected.map((_, d) => d));
                expect(path.map((e) => e.parentId)).toEqual(
                  expected.map((_, d) => (d ? expected[d - 1] : null)),
                );
              }
            }
          } finally {
            other.close();
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it("hands out read-only entries", () => {
    const s = store.createSession({ profile: writer });
    store.append(s.id, user("hello"));
    const [e] = store.activePath(s.id);
    expect(() => {
      (e.data as { text: string }).text = "changed";
    }).toThrow(TypeError);
    expect(store.activePath(s.id)[0].data).toMatchObject({ text: "hello" });
  });
});
