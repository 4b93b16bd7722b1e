import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CollabFixture, collabFixture } from "./fixture.js";

/**
 * A tree in project "novel": leader L created directors D1 and D2; D1 created writer W. U is an
 * unrelated leader in the same project, O a leader in project "other".
 */
let fx: CollabFixture;
let L: string, D1: string, D2: string, W: string, U: string, O: string;

async function created(parent: string, profileKey: string): Promise<string> {
  const r = await fx.tool(parent, "create_agent", { profileKey });
  if (!r.ok) throw new Error(r.error.message);
  return (r.details as { sessionId: string }).sessionId;
}

beforeEach(async () => {
  fx = collabFixture({});
  L = fx.root().id;
  D1 = await created(L, "director");
  D2 = await created(L, "director");
  W = await created(D1, "writer");
  U = fx.root().id;
  O = fx.root("leader.default", { project: "other" }).id;
});
afterEach(() => fx.close());

const ACTIONS: [string, (id: string) => unknown][] = [
  ["invoke_agent", (id) => ({ sessionId: id, message: "hello" })],
  ["get_agent", (id) => ({ sessionId: id })],
  ["detach_agent", (id) => ({ sessionId: id })],
  ["get_session", (id) => ({ sessionId: id })],
];

async function expectRefused(caller: string, target: string) {
  for (const [key, input] of ACTIONS) {
    const r = await fx.tool(caller, key, input(target));
    expect(r.ok, `${key} of ${target} by ${caller}`).toBe(false);
    if (!r.ok) {
      expect(r.error.code, `${key} of ${target} by ${caller}`).toBe("not_allowed");
      expect(r.error.message).toMatch(/not yours|not an agent you created/);
    }
  }
}

describe("the ownership policy", () => {
  it("refuses every action on an unrelated session of the same project", async () => {
    await expectRefused(U, L);
    await expectRefused(U, W);
    await expectRefused(L, U);
  });

  it("refuses every action on a sibling and on a sibling's child", async () => {
    await expectRefused(D2, D1);
    await expectRefused(D2, W);
  });

  it("refuses every action on a session in another project", async () => {
    await expectRefused(O, L);
    await expectRefused(O, W);
    await expectRefused(L, O);
  });

  it("answers a session that does not exist like one that is not yours", async () => {
    await expectRefused(L, "999");
  });

  it("lets a session reach its children transitively and read its own parent chain", async () => {
    expect((await fx.tool(L, "get_agent", { sessionId: W })).ok).toBe(true);
    expect((await fx.tool(L, "get_session", { sessionId: W })).ok).toBe(true);
    expect((await fx.tool(D1, "get_agent", { sessionId: L })).ok).toBe(true);
    expect((await fx.tool(D1, "get_session", { sessionId: L })).ok).toBe(true);
    const own = await fx.tool(D1, "get_session", {});
    expect(own.ok && (own.details as { metadata: { sessionId: string } }).metadata.sessionId).toBe(D1);
    // A worker profile has no collaboration tools at all.
    const worker = await fx.tool(W, "get_session", {});
    expect(!worker.ok && worker.error.code).toBe("not_allowed");
    const listed = await fx.tool(L, "get_agent", {});
    expect(
      listed.ok && (listed.details as { agents: { sessionId: string }[] }).agents.map((a) => a.sessionId),
    ).toEqual([D1, D2]);
  });

  it("refuses invoking your own session", async () => {
    const r = await fx.tool(L, "invoke_agent", { sessionId: Number(L), message: "me" });
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.error).toMatchObject({
        code: "not_allowed",
        message: "An agent cannot invoke its own session",
      });
  });

  it("detach drops the access the link gave, keeps the session, and says when it was already done", async () => {
    const r = await fx.tool(L, "detach_agent", { sessionId: D1 });
    expect(r.ok && r.details).toEqual({ sessionId: D1, status: "detached" });
    expect(fx.store.session(D1).parentSessionId).toBe(L);
    const again = await fx.tool(L, "detach_agent", { sessionId: D1 });
    expect(again.ok && again.details).toEqual({ sessionId: D1, status: "already_detached" });
    for (const [key, input] of ACTIONS.filter(([k]) => k !== "detach_agent")) {
      const r = await fx.tool(L, key, input(D1));
      expect(!r.ok && r.error.code, key).toBe("not_allowed");
    }
    await expectRefused(L, W);
    await expectRefused(D1, L);
    // D1 still holds W.
    expect((await fx.tool(D1, "get_agent", { sessionId: W })).ok).toBe(true);
    const listed = await fx.tool(L, "get_agent", {});
    expect(
      listed.ok && (listed.details as { agents: { sessionId: string }[] }).agents.map((a) => a.sessionId),
    ).toEqual([D2]);
  });

  it("a child cannot detach its parent or itself", async () => {
    for (const target of [L, D1]) {
      const r = await fx.tool(D1, "detach_agent", { sessionId: target });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.code).toBe("not_allowed");
    }
    expect(fx.store.linkOf(D1)?.detachedAt).toBeNull();
  });
});
