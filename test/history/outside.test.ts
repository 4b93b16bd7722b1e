import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { History } from "../../src/history/history.js";
import { repairHistory } from "../../src/history/maintenance.js";
import { setHistoryNotices } from "../../src/history/recording.js";
import { revertChanges } from "../../src/history/revert.js";
import { makeTestBed, type TestBed } from "../helpers.js";

let bed: TestBed;
afterEach(() => bed?.cleanup());
// The notice of a write left unrecorded goes here, not to the test's stderr.
setHistoryNotices(() => {});

const ch = (n: number) => `manuscript/ch-${String(n).padStart(2, "0")}/index.md`;
const text = (n: number) => `Chapter ${n}.\n\nIts first paragraph.\n`;

/** A book of `n` chapters, each written through the pipeline by the user. */
async function book(n: number): Promise<void> {
  bed = makeTestBed();
  for (let i = 1; i <= n; i++)
    expect((await bed.call("write", { path: ch(i), content: text(i) })).ok).toBe(true);
}

function git(args: string[]): string {
  const gitDir = join(bed.project.root, ".nbook", "history.git");
  return execFileSync("git", [`--git-dir=${gitDir}`, ...args], { encoding: "utf8" });
}

describe("outside edits, project-wide", () => {
  it("records an edit to chapter 7 made with no NeuroBook involvement before an agent's write to chapter 2, and it survives that write's revert", async () => {
    await book(8);
    const root = bed.project.root;
    const edited = text(7).replace("first", "hand-edited");
    writeFileSync(join(root, ch(7)), edited);
    const r = await bed.call(
      "write",
      { path: ch(2), content: "Rewritten by the agent.\n" },
      { profile: "leader.default" },
    );
    expect(r.ok).toBe(true);
    const h = History.of(bed.project);
    const [agent, outside] = h.index.list();
    expect(agent).toMatchObject({ actor: "agent", targets: [ch(2)] });
    expect(outside).toMatchObject({ actor: "outside", targets: [ch(7)] });
    expect(outside.summary).toContain(ch(7));
    await revertChanges(h, [agent], {});
    expect(readFileSync(join(root, ch(2)), "utf8")).toBe(text(2));
    expect(readFileSync(join(root, ch(7)), "utf8")).toBe(edited);
  });

  it("in a process that records again and again (folders watched), still sees edits, new folders and deletions anywhere", async () => {
    await book(4);
    const root = bed.project.root;
    const h = History.of(bed.project);
    // Each write after the first few scans with the watch; run several to be sure it is on.
    for (let i = 0; i < 4; i++) await bed.call("write", { path: ch(1), content: `Round ${i}.\n` });
    writeFileSync(join(root, ch(3)), "Chapter 3, edited in another editor.\n");
    mkdirSync(join(root, "manuscript", "ch-09"), { recursive: true });
    writeFileSync(join(root, "manuscript", "ch-09", "index.md"), "A chapter made by hand.\n");
    rmSync(join(root, "manuscript", "ch-04"), { recursive: true });
    await bed.call("write", { path: ch(1), content: "After the edits.\n" }, { profile: "leader.default" });
    const [agent, outside] = h.index.list();
    expect(agent).toMatchObject({ actor: "agent", targets: [ch(1)] });
    expect(outside.actor).toBe("outside");
    expect([...(outside.targets ?? [])].sort()).toEqual([ch(3), ch(4), "manuscript/ch-09/index.md"].sort());
    // A folder removed and made again is seen too.
    rmSync(join(root, "manuscript", "ch-09"), { recursive: true });
    mkdirSync(join(root, "manuscript", "ch-09"));
    writeFileSync(join(root, "manuscript", "ch-09", "index.md"), "Made again.\n");
    await bed.call("write", { path: ch(1), content: "Once more.\n" });
    const [, again] = h.index.list();
    expect(again).toMatchObject({ actor: "outside", targets: ["manuscript/ch-09/index.md"] });
  });

  it("with folders watched, an edit left aside while a write to that file ran is recorded at the next look, with no new event", async () => {
    await book(3);
    const root = bed.project.root;
    const h = History.of(bed.project);
    for (let i = 0; i < 4; i++) await bed.call("write", { path: ch(1), content: `Round ${i}.\n` });
    const write = await h.begin("c00000000000000aa", [ch(2)]);
    writeFileSync(join(root, ch(2)), "Edited by hand while a write to it ran.\n");
    writeFileSync(join(root, ch(3)), "Edited by hand too.\n");
    // This look takes the folders' events: chapter 3 is recorded, chapter 2 is the write's.
    expect((await h.recordOutside())?.targets).toEqual([ch(3)]);
    h.drop(write);
    // No event since: chapter 2 is still compared, because the last look left it aside.
    expect((await h.recordOutside())?.targets).toEqual([ch(2)]);
    expect(await h.recordOutside()).toBeNull();
  });

  it("with folders watched, an edit after another process moved the head is recorded, and that process's change is not taken for one", async () => {
    await book(3);
    const root = bed.project.root;
    const h = History.of(bed.project);
    for (let i = 0; i < 4; i++) await bed.call("write", { path: ch(1), content: `Round ${i}.\n` });
    const other = new History(bed.project);
    const w = await other.begin("c00000000000000bb", [ch(2)]);
    writeFileSync(join(root, ch(2)), "From the other process.\n");
    await other.finish(
      w,
      { tool: "write", session: null, profile: null, callId: null },
      { summary: "other", targets: [ch(2)], rows: false },
    );
    other.close();
    writeFileSync(join(root, ch(3)), "Edited by hand.\n");
    expect((await h.recordOutside())?.targets).toEqual([ch(3)]);
  });

  it("with folders watched, a record that failed (the branch locked) leaves the edits it saw to the next one", async () => {
    await book(3);
    const root = bed.project.root;
    const h = History.of(bed.project);
    for (let i = 0; i < 4; i++) await bed.call("write", { path: ch(1), content: `Round ${i}.\n` });
    const lock = join(root, ".nbook", "history.git", "refs", "heads", "main.lock");
    writeFileSync(lock, "");
    writeFileSync(join(root, ch(3)), "Edited by hand while the branch was locked.\n");
    await expect(h.recordOutside()).rejects.toThrow(/locked/);
    rmSync(lock);
    expect((await h.recordOutside())?.targets).toEqual([ch(3)]);
    expect(git(["show", `main:${ch(1)}`])).toBe("Round 3.\n");
  });

  it("records nothing as outside when nothing changed, and a new process sees an edit made while none ran", async () => {
    await book(3);
    const h = History.of(bed.project);
    const count = h.index.stats().changes;
    await bed.call("write", { path: ch(1), content: text(1) });
    expect(h.index.stats().changes).toBe(count);
    // As a new process would: the history reopened, its stat cache read back from the index.
    h.reset();
    writeFileSync(join(bed.project.root, ch(2)), "Edited while NeuroBook was closed.\n");
    await bed.call("write", { path: ch(1), content: "Next.\n" });
    const [write, outside] = h.index.list();
    expect(write.targets).toEqual([ch(1)]);
    expect(outside).toMatchObject({ actor: "outside", targets: [ch(2)] });
  });
});

describe("the repository NeuroBook builds", () => {
  it("is a valid git repository (fsck clean), with trailers and per-change trees git reads, and no hooks", async () => {
    await book(3);
    await bed.call(
      "write",
      { path: "notes/deep/er/idea.md", content: "An idea.\n" },
      { profile: "leader.default" },
    );
    await bed.call(
      "bash",
      { command: "rm manuscript/ch-02/index.md && printf x > a.md" },
      { approved: true },
    );
    const gitDir = join(bed.project.root, ".nbook", "history.git");
    expect(existsSync(join(gitDir, "hooks")) ? readdirSync(join(gitDir, "hooks")) : []).toEqual([]);
    execFileSync("git", [`--git-dir=${gitDir}`, "fsck", "--strict", "--no-dangling"]);
    const files = git(["ls-tree", "-r", "--name-only", "main"]).trim().split("\n");
    expect(files).toEqual(expect.arrayContaining(["a.md", ch(1), ch(3), "notes/deep/er/idea.md"]));
    expect(files).not.toContain(ch(2));
    expect(files.some((f) => f.startsWith(".nbook/"))).toBe(false);
    expect(git(["log", "-1", "--format=%B", "main~1"])).toMatch(/Profile: leader\.default/);
    expect(git(["show", "main~1:notes/deep/er/idea.md"])).toBe("An idea.\n");
    const head = git(["rev-parse", "main"]).trim();
    expect(await History.of(bed.project).repo.parentOf(head)).toBe(git(["rev-parse", "main~1"]).trim());
  });

  it("commits on a head another process moved", async () => {
    await book(2);
    const first = History.of(bed.project);
    // Another process: its own History of the same project.
    const other = new History(bed.project);
    await other.open();
    const p = other.begin("c0000000000000001", [ch(1)]);
    writeFileSync(join(bed.project.root, ch(1)), "From the other process.\n");
    await other.finish(
      await p,
      { tool: "write", session: null, profile: null, callId: null },
      {
        summary: "other",
        targets: [ch(1)],
        rows: false,
      },
    );
    other.close();
    await bed.call("write", { path: ch(2), content: "From this one.\n" });
    expect(
      first.index
        .list()
        .slice(0, 2)
        .map((c) => c.targets),
    ).toEqual([[ch(2)], [ch(1)]]);
    expect(git(["show", `main:${ch(1)}`])).toBe("From the other process.\n");
    execFileSync("git", [
      `--git-dir=${join(bed.project.root, ".nbook", "history.git")}`,
      "fsck",
      "--no-dangling",
    ]);
  });

  it("a branch lock left by a process that died never blocks a write, and repair clears it", async () => {
    await book(1);
    const h = History.of(bed.project);
    const lock = join(bed.project.root, ".nbook", "history.git", "refs", "heads", "main.lock");
    writeFileSync(lock, "");
    const before = h.index.stats().changes;
    expect((await bed.call("write", { path: ch(1), content: "Written while locked.\n" })).ok).toBe(true);
    expect(h.index.stats().changes).toBe(before);
    await repairHistory(h);
    expect(existsSync(lock)).toBe(false);
    await bed.call("write", { path: ch(1), content: "Recorded again.\n" });
    expect(h.index.list()[0]).toMatchObject({ tool: "write", targets: [ch(1)] });
  });

  it("indexes a head commit whose index row a dying process never wrote, when the history next opens", async () => {
    await book(1);
    await bed.call("write", { path: ch(1), content: "The last change.\n" }, { profile: "leader.default" });
    const h = History.of(bed.project);
    const [last] = h.index.list();
    h.reset();
    const db = new Database(join(bed.project.root, ".nbook", "history.sqlite"));
    db.prepare("DELETE FROM changes WHERE id = ?").run(last.id);
    db.close();
    await h.open();
    expect(h.index.list()[0]).toEqual(last);
  });
});
