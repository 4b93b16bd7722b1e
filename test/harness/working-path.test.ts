import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { invocationText } from "../../src/collab/payload.js";
import { type PathState, readPath } from "../../src/harness/context.js";
import { type Entry, type EntryInput, SessionStore } from "../../src/harness/store/index.js";
import { workingPath } from "../../src/harness/working-path.js";

const profile = { key: "writer", initial: z.object({}).strict() };
const user = (text: string, intent?: "system"): EntryInput => ({
  kind: "user",
  data: { text, ...(intent ? { intent } : {}) },
});
const said = (text: string): EntryInput => ({ kind: "assistant", data: { text } });
const compaction = (keep: Entry | null): EntryInput => ({
  kind: "compaction",
  data: { summary: "Earlier: the tide chapters were drafted.", firstKeptEntryId: keep?.id ?? null },
});

let dir: string;
let store: SessionStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "nb-working-path-"));
  store = SessionStore.open(join(dir, "agent.sqlite"));
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What a run takes from a path, with entries by id (the working path's are read again, not shared). */
function stateOf(path: Entry[]) {
  const s: PathState = readPath(path);
  return { ...s, visible: s.visible.map((e) => e.id), loadedSets: [...s.loadedSets] };
}

/** The working path of a session, checked to give the state its whole active path gives. */
function checkedWorkingPath(id: string): Entry[] {
  const working = workingPath(store, id);
  expect(stateOf(working)).toEqual(stateOf(store.activePath(id)));
  return working;
}

function chatter(id: string, n: number): Entry[] {
  const out: Entry[] = [];
  for (let i = 0; i < n; i++) out.push(...store.commitStep(id, [user(`Part ${i}.`), said(`Done ${i}.`)]));
  return out;
}

describe("the working path a run reads", () => {
  it("after a compaction reads the kept entries and the latest earlier task list, mode change, run start, answer and payload, and gives the state the whole path gives", () => {
    const s = store.createSession({ profile });
    store.append(s.id, user(invocationText("Write chapter 3.", { targetPath: "manuscript/ch-03.md" })!));
    store.append(s.id, { kind: "run_start", data: { runId: "r1", invocation: "prompt", ceiling: "normal" } });
    store.append(s.id, {
      kind: "task_list",
      data: { tasks: [{ id: "t1", title: "Draft the tide scene", status: "in_progress" }] },
    });
    store.append(s.id, { kind: "mode_change", data: { from: "normal", to: "discuss", by: "user" } });
    const middle = chatter(s.id, 200);
    // A message that names the payload header but carries none is not taken for one.
    store.append(s.id, user("Input (this invocation's payload): is what the writer gets."));
    store.append(s.id, user(invocationText("A note from nbook.", { targetPath: "x.md" })!, "system"));
    const kept = chatter(s.id, 3);
    store.append(s.id, compaction(kept[0]!));
    chatter(s.id, 2);
    const working = checkedWorkingPath(s.id);
    expect(stateOf(working).payload).toEqual({ targetPath: "manuscript/ch-03.md" });
    expect(stateOf(working).tasks).toHaveLength(1);
    // The kept entries, the compaction and what followed, plus six carried: the task list, the mode
    // change, the run start, the latest answer, the latest message and the one with the payload.
    expect(working.length).toBe(6 + 1 + 4 + 6);
    expect(working.map((e) => e.id)).not.toContain(middle[100]!.id);
  });

  it("is the whole path without a compaction, and follows the branch the leaf is on", () => {
    const s = store.createSession({ profile });
    const first = chatter(s.id, 5);
    expect(workingPath(store, s.id)).toEqual(store.activePath(s.id));
    // Branch from the middle: the other branch's compaction and entries are not on the path.
    chatter(s.id, 3);
    store.append(s.id, compaction(first[8]!));
    store.setLeaf(s.id, first[3]!.id);
    const branch = chatter(s.id, 40);
    store.append(s.id, compaction(branch[60]!));
    chatter(s.id, 1);
    const working = checkedWorkingPath(s.id);
    const ids = new Set(store.activePath(s.id).map((e) => e.id));
    expect(working.every((e) => ids.has(e.id))).toBe(true);
    expect(working.length).toBeLessThan(30);
  });

  it("with two compactions, the latest decides, even when its kept entries start before the first", () => {
    const s = store.createSession({ profile });
    const a = chatter(s.id, 20);
    store.append(s.id, compaction(a[30]!));
    const b = chatter(s.id, 2);
    store.append(s.id, compaction(a[36]!));
    chatter(s.id, 1);
    expect(stateOf(checkedWorkingPath(s.id)).visible[0]).toBe(a[36]!.id);
    expect(b).toHaveLength(4);
  });

  it("a compaction that kept nothing shows what came after it", () => {
    const s = store.createSession({ profile });
    chatter(s.id, 10);
    store.append(s.id, compaction(null));
    const after = chatter(s.id, 2);
    expect(stateOf(checkedWorkingPath(s.id)).visible).toEqual(after.map((e) => e.id));
  });
});
