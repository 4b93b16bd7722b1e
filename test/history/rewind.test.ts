import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { NbError } from "../../src/core/errors.js";
import { rewindSession, undoLastTurn } from "../../src/harness/rewind.js";
import { type HarnessFixture, harnessFixture } from "../harness-fixture.js";

let fx: HarnessFixture;
afterEach(() => fx?.close());

const write = (content: string) => ({
  toolCalls: [{ name: "write", input: { path: "notes/a.md", content } }],
});
const note = () => readFileSync(join(fx.project.root, "notes/a.md"), "utf8");

async function rejected(p: Promise<unknown>): Promise<NbError> {
  try {
    await p;
  } catch (e) {
    return e as NbError;
  }
  throw new Error("expected a rejection");
}

/** A session with two turns: the first writes "one", the second overwrites it with "two". */
async function twoTurns() {
  fx = harnessFixture([write("one\n"), { text: "wrote one" }, write("two\n"), { text: "wrote two" }]);
  const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
  await fx.harness.invoke(s.id, { mode: "prompt", message: "write one" });
  const firstTurnEnd = fx.store.activePath(s.id).at(-1)?.id as string;
  await fx.harness.invoke(s.id, { mode: "prompt", message: "write two" });
  expect(note()).toBe("two\n");
  return { id: s.id, firstTurnEnd };
}

describe("rewinding a conversation", () => {
  it("both: the files go back to that point and the next message branches from it", async () => {
    const { id, firstTurnEnd } = await twoTurns();
    const before = fx.store.activePath(id).length;
    const r = await rewindSession(fx.store, fx.workspace, id, firstTurnEnd, "both");
    expect(note()).toBe("one\n");
    expect(r).toMatchObject({ leafId: firstTurnEnd, reverted: [expect.any(String)] });
    expect(r.dropped).toBe(before - fx.store.activePath(id).length);
    expect(fx.store.activePath(id).at(-1)?.id).toBe(firstTurnEnd);
    // The dropped turn is still stored, on its own branch.
    expect(fx.store.children(firstTurnEnd)).toHaveLength(1);

    fx.script([{ text: "starting over" }]);
    await fx.harness.invoke(id, { mode: "prompt", message: "something else" });
    expect(fx.store.children(firstTurnEnd)).toHaveLength(2);
    expect(
      fx.store
        .activePath(id)
        .filter((e) => e.kind === "user")
        .map((e) => e.data.text),
    ).toEqual(["write one", "something else"]);
  });

  it("conversation only keeps the files; files only keeps the conversation", async () => {
    const { id, firstTurnEnd } = await twoTurns();
    const leaf = fx.store.session(id).leafId;
    const files = await rewindSession(fx.store, fx.workspace, id, firstTurnEnd, "files");
    expect(note()).toBe("one\n");
    expect(files).toMatchObject({ leafId: leaf, dropped: 0 });
    expect(fx.store.session(id).leafId).toBe(leaf);
    const talk = await rewindSession(fx.store, fx.workspace, id, firstTurnEnd, "conversation");
    expect(talk).toMatchObject({ leafId: firstTurnEnd, reverted: [], revertChange: null });
    expect(note()).toBe("one\n");
  });

  it("/undo takes back the last turn's changes and leaves the conversation", async () => {
    const { id } = await twoTurns();
    const leaf = fx.store.session(id).leafId;
    const r = await undoLastTurn(fx.store, fx.workspace, id);
    expect(note()).toBe("one\n");
    expect(r.reverted).toHaveLength(1);
    expect(fx.store.session(id).leafId).toBe(leaf);
  });

  it("a fork is a new session holding the path up to the entry, and carries on on its own", async () => {
    const { id, firstTurnEnd } = await twoTurns();
    const path = fx.store.pathTo(id, firstTurnEnd);
    const fork = fx.store.forkSession(id, firstTurnEnd);
    expect(fork.id).not.toBe(id);
    expect(fork).toMatchObject({ profileKey: "leader.default", project: "novel", status: "idle" });
    const copied = fx.store.activePath(fork.id);
    expect(copied.map((e) => [e.kind, e.data])).toEqual(path.map((e) => [e.kind, e.data]));
    fx.script([{ text: "forked reply" }]);
    await fx.harness.invoke(fork.id, { mode: "prompt", message: "in the fork" });
    expect(fx.store.activePath(fork.id).at(-2)).toMatchObject({
      kind: "assistant",
      data: { text: "forked reply" },
    });
    // The original is untouched.
    expect(fx.store.activePath(id).filter((e) => e.kind === "user")).toHaveLength(2);
  });

  it("unknown sessions and entries, and entries off the active branch, are clear errors", async () => {
    const { id, firstTurnEnd } = await twoTurns();
    expect((await rejected(rewindSession(fx.store, fx.workspace, "999", firstTurnEnd, "both"))).code).toBe(
      "not_found",
    );
    const missing = await rejected(rewindSession(fx.store, fx.workspace, id, "99999", "both"));
    expect([missing.code, missing.message]).toEqual(["not_found", `No entry 99999 in session ${id}`]);
    expect(() => fx.store.forkSession(id, "abc")).toThrow(/No entry abc in session/);
    await rewindSession(fx.store, fx.workspace, id, firstTurnEnd, "conversation");
    const lastOfOldBranch = fx.store.allEntries(id).at(-1)?.id as string;
    const off = await rejected(rewindSession(fx.store, fx.workspace, id, lastOfOldBranch, "both"));
    expect(off.code).toBe("invalid_input");
    expect(off.message).toContain(`nbook sessions fork ${id} --at ${lastOfOldBranch}`);
  });
});
