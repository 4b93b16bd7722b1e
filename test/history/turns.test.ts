// Each recorded change carries the turn it was made in (the entry id of the user message that began
// it): in the index, in the commit's trailer (so a repair rebuilds it), in `history --json`, and as a
// filter of the listing and of a revert.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { History } from "../../src/history/history.js";
import { ChangeIndex } from "../../src/history/index-db.js";
import { repairHistory } from "../../src/history/maintenance.js";
import { revertChanges } from "../../src/history/revert.js";
import { selectChanges } from "../../src/history/review.js";
import { type HarnessFixture, harnessFixture } from "../harness-fixture.js";
import { runNbook } from "../helpers.js";

let fx: HarnessFixture;
afterEach(() => fx?.close());

const write = (path: string, content: string) => ({
  toolCalls: [{ name: "write", input: { path, content } }],
});

/** Two turns: the first writes two notes in two steps, the second rewrites one of them. */
async function twoTurns() {
  fx = harnessFixture([
    write("notes/a.md", "a1\n"),
    write("notes/b.md", "b1\n"),
    { text: "wrote a and b" },
    write("notes/a.md", "a2\n"),
    { text: "rewrote a" },
  ]);
  const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
  await fx.harness.invoke(s.id, { mode: "prompt", message: "write a and b" });
  await fx.harness.invoke(s.id, { mode: "prompt", message: "rewrite a" });
  const users = fx.store.activePath(s.id).filter((e) => e.kind === "user");
  const history = History.of(fx.project);
  await history.open();
  return { session: s.id, turns: users.map((u) => u.id), history };
}

describe("the turn of a change", () => {
  it("is the entry id of the user message that began it, and survives a rebuild of the index", async () => {
    const { session, turns, history } = await twoTurns();
    const mine = history.index.list({ session }).reverse();
    expect(mine.map((c) => [c.tool, c.turn])).toEqual([
      ["write", turns[0]],
      ["write", turns[0]],
      ["write", turns[1]],
    ]);
    expect(history.index.list({ turn: turns[0] }).map((c) => c.targets)).toEqual([
      ["notes/b.md"],
      ["notes/a.md"],
    ]);
    const message = (await history.repo.git.run(["log", "-1", "--format=%B"])).stdout.toString("utf8");
    expect(message).toContain(`Turn: ${turns[1]}`);

    const report = await repairHistory(history);
    expect(report.changes).toBeGreaterThan(3);
    expect(
      history.index
        .list({ session })
        .reverse()
        .map((c) => c.turn),
    ).toEqual([turns[0], turns[0], turns[1]]);
  });

  it("is listed by `nbook history --json`, which filters by it, and `nbook revert --turn` takes a turn back", async () => {
    const { turns } = await twoTurns();
    const env = { cwd: fx.dir };
    const listed = runNbook(["history", "--workspace", fx.dir, "--project", "novel", "--json"], env);
    expect(listed.status, listed.stderr).toBe(0);
    const all = JSON.parse(listed.stdout) as { turn: string | null; tool: string | null }[];
    expect(all.filter((c) => c.tool === "write").map((c) => c.turn)).toEqual([turns[1], turns[0], turns[0]]);
    const one = runNbook(
      ["history", "--workspace", fx.dir, "--project", "novel", "--turn", turns[1], "--json"],
      env,
    );
    expect((JSON.parse(one.stdout) as unknown[]).length).toBe(1);

    // The later turn first (its change is on a.md after the first turn's), then the first one.
    for (const turn of [turns[1], turns[0]]) {
      const r = runNbook(
        ["revert", "--workspace", fx.dir, "--project", "novel", "--turn", turn, "--json"],
        env,
      );
      expect(r.status, r.stderr).toBe(0);
    }
    const root = fx.project.root;
    expect(() => readFileSync(join(root, "notes/a.md"))).toThrow();
    expect(() => readFileSync(join(root, "notes/b.md"))).toThrow();
  });

  it("selects a turn's changes for a revert; an unknown turn is not_found", async () => {
    const { turns, history } = await twoTurns();
    const first = selectChanges(history, { turn: turns[0] });
    expect(first).toHaveLength(2);
    expect(() => selectChanges(history, { turn: "999999" })).toThrow(/No recorded changes match/);
    await revertChanges(history, selectChanges(history, { turn: turns[1] }), {});
    expect(readFileSync(join(fx.project.root, "notes/a.md"), "utf8")).toBe("a1\n");
  });
});

describe("an index written before changes carried their turn", () => {
  it("is upgraded in place: its changes keep their rows, with no turn", () => {
    const dir = mkdtempSync(join(tmpdir(), "nbook-index-v1-"));
    try {
      const file = join(dir, "history.sqlite");
      const v1 = new Database(file);
      v1.exec(`CREATE TABLE changes (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, time TEXT NOT NULL,
        actor TEXT NOT NULL, session TEXT, profile TEXT, tool TEXT, call_id TEXT, targets TEXT,
        summary TEXT NOT NULL, commit_sha TEXT, reverts TEXT);
        INSERT INTO changes (id, time, actor, session, tool, targets, summary)
        VALUES ('c000000001000abcd', '2026-12-01T00:00:00.000Z', 'agent', '4', 'write', '["a.md"]', 'Wrote a.md');
        PRAGMA user_version = 1;`);
      v1.close();
      const index = new ChangeIndex(file);
      expect(index.list().map((c) => [c.id, c.turn, c.targets])).toEqual([
        ["c000000001000abcd", null, ["a.md"]],
      ]);
      index.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
