import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NbError } from "../../src/core/errors.js";
import { FileSource, SAMPLE_DIR } from "../../src/research/file-source.js";
import { bookJson, snapshotJson, writeJson, writeSnapshotDir } from "./fixture.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "nbook-research-files-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const open = (root = join(dir, "snapshots"), confine?: string) =>
  new FileSource({ dir: root, key: "file test", label: "the test files", confine });

async function failure(p: Promise<unknown>): Promise<NbError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(NbError);
  return e as NbError;
}

describe("the file research source", () => {
  it("answers a board with its latest snapshot by fetchedAt, and keeps the others as its archive", async () => {
    writeSnapshotDir(join(dir, "snapshots"), [
      snapshotJson("qidian", "yuepiao", "2025-06-08T23:00:00.000Z", [["1", "B"]]),
      // 06:00 on the 9th in UTC+8 is 22:00 on the 8th in UTC: earlier than the snapshot above.
      snapshotJson("qidian", "yuepiao", "2025-06-09T06:00:00+08:00", [["2", "C"]]),
      snapshotJson("qidian", "yuepiao", "2025-06-01T08:00:00.000Z", [["1", "A"]]),
    ]);
    const src = open();
    expect((await src.rankings("qidian", "yuepiao")).fetchedAt).toBe("2025-06-08T23:00:00.000Z");
    expect((await src.archive("qidian", "yuepiao")).map((s) => s.fetchedAt)).toEqual([
      "2025-06-09T06:00:00+08:00",
      "2025-06-01T08:00:00.000Z",
    ]);
  });

  it("reads a book detail, and lists what it has when a platform, board or book is unknown", async () => {
    writeSnapshotDir(
      join(dir, "snapshots"),
      [snapshotJson("fanqie", "0_1_1139", "2025-06-08T08:00:00.000Z", [["7", "龙"]])],
      [bookJson("fanqie", "7", "2025-06-08T09:00:00.000Z")],
    );
    const src = open();
    expect((await src.book("fanqie", "7")).title).toBe("Book 7");
    const platform = await failure(src.rankings("qidian", "yuepiao"));
    expect(platform.code).toBe("not_found");
    expect(platform.message).toBe("No platform qidian in the test files. Platforms it has: fanqie");
    const board = await failure(src.rankings("fanqie", "hot"));
    expect(board.message).toBe(
      "No board hot for fanqie in the test files. Boards it has: 0_1_1139 (Board 0_1_1139)",
    );
    const book = await failure(src.book("fanqie", "8"));
    expect(book.message).toBe("No book 8 on fanqie in the test files. Books it has: 7 (Book 7)");
    // A key that cannot be a file name is simply unknown, never a path.
    expect((await failure(src.book("fanqie", "../../7"))).code).toBe("not_found");
    expect((await failure(src.rankings("fanqie", ".."))).code).toBe("not_found");
  });

  it("names the file whose data is broken, relative to the folder", async () => {
    const folder = join(dir, "snapshots", "qidian", "rankings", "yuepiao");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "a.json"), "{ not json");
    const bad = await failure(open().rankings("qidian", "yuepiao"));
    expect(bad.code).toBe("io_error");
    expect(bad.message).toMatch(/^the test files: qidian\/rankings\/yuepiao\/a\.json is not valid JSON/);
    expect(bad.message).not.toContain(dir);
    writeJson(join(folder, "a.json"), snapshotJson("qidian", "hotsales", "2025-06-08T08:00:00.000Z", []));
    expect((await failure(open().rankings("qidian", "yuepiao"))).message).toContain(
      "answers for qidian/hotsales, not for qidian/yuepiao",
    );
  });

  it("in a confined folder, refuses a file that links outside it", async () => {
    const project = join(dir, "project");
    const outside = join(dir, "outside.json");
    writeJson(outside, bookJson("qidian", "9", "2025-06-08T09:00:00.000Z"));
    mkdirSync(join(project, "research", "qidian", "books"), { recursive: true });
    symlinkSync(outside, join(project, "research", "qidian", "books", "9.json"));
    const e = await failure(open(join(project, "research"), project).book("qidian", "9"));
    expect(e.code).toBe("path_escape");
    expect(e.message).toContain("leads outside the project");
    // Unconfined (the workspace's own folder), the same link is followed.
    expect((await open(join(project, "research")).book("qidian", "9")).title).toBe("Book 9");
  });

  it("is a config error when its folder does not exist (a setting to fix, not an unknown board)", async () => {
    const e = await failure(open(join(dir, "missing")).rankings("qidian", "yuepiao"));
    expect(e.code).toBe("config_error");
    expect(e.message).toBe("No folder for the test files: check research.dir in .nbook/config.json");
  });

  it("reads the shipped offline sample: two boards of two snapshots each, and four books", async () => {
    const sample = open(SAMPLE_DIR);
    for (const [platform, board] of [
      ["qidian", "yuepiao"],
      ["fanqie", "0_1_1139"],
    ]) {
      expect((await sample.rankings(platform, board)).items.length).toBeGreaterThan(4);
      expect(await sample.archive(platform, board)).toHaveLength(1);
    }
    expect((await sample.book("qidian", "1040000102")).stale).toBe(true);
    expect((await sample.book("fanqie", "7390000000000000206")).stale).toBe(false);
  });
});
