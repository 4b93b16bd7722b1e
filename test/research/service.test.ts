import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { NbError } from "../../src/core/errors.js";
import { FileSource } from "../../src/research/file-source.js";
import { HttpSource } from "../../src/research/http-source.js";
import { compareSnapshots } from "../../src/research/movement.js";
import { Research, sampleSource, storedBoards, storedSnapshots } from "../../src/research/service.js";
import { RankingSnapshotSchema } from "../../src/research/shapes.js";
import { freshness } from "../../src/research/staleness.js";
import { researchDbPath } from "../../src/research/store.js";
import {
  bookJson,
  closedPort,
  type Fixture,
  json,
  snapshotJson,
  startFixture,
  writeSnapshotDir,
} from "./fixture.js";

const WEEK1 = "2025-06-01T08:00:00.000Z";
const WEEK2 = "2025-06-08T08:00:00.000Z";

const week1: [string, string][] = [
  ["a", "Alpha"],
  ["b", "Bravo"],
  ["c", "Charlie"],
  ["d", "Delta"],
  ["e", "Echo"],
];
const week2: [string, string][] = [
  ["c", "Charlie"], // 3 → 1: up 2
  ["a", "Alpha"], // 1 → 2: down 1
  ["f", "Foxtrot"], // new
  ["d", "Delta"], // 4 → 4: unchanged
  ["b", "Bravo"], // 2 → 5: down 3
]; // Echo (5) dropped

let root: string;
let fx: Fixture;
let board: Record<string, unknown>;

beforeAll(async () => {
  fx = await startFixture((req, res) => {
    if (req.url === "/v1/rankings/qidian/yuepiao") json(res, 200, board);
    else if (req.url === "/v1/books/qidian/c") json(res, 200, bookJson("qidian", "c", WEEK2));
    else json(res, 404, { message: "unknown" });
  });
});
afterAll(() => fx.close());
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "nbook-research-ws-"));
  mkdirSync(join(root, ".nbook"));
  board = snapshotJson("qidian", "yuepiao", WEEK1, week1);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const at = (iso: string) => () => new Date(iso);

async function failure(p: Promise<unknown>): Promise<NbError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(NbError);
  return e as NbError;
}

describe("rank movement", () => {
  it("finds new entries, climbers, fallers, dropped books and the unchanged, by the platform's book id", () => {
    const m = compareSnapshots(
      RankingSnapshotSchema.parse(snapshotJson("qidian", "yuepiao", WEEK1, week1)),
      RankingSnapshotSchema.parse(snapshotJson("qidian", "yuepiao", WEEK2, week2)),
    );
    expect(m.previousFetchedAt).toBe(WEEK1);
    expect(m.entered.map((e) => [e.bookId, e.rank])).toEqual([["f", 3]]);
    expect(m.climbed.map((e) => [e.bookId, e.previousRank, e.rank, e.change])).toEqual([["c", 3, 1, 2]]);
    // Fallers: the biggest fall first.
    expect(m.fell.map((e) => [e.bookId, e.previousRank, e.rank, e.change])).toEqual([
      ["b", 2, 5, -3],
      ["a", 1, 2, -1],
    ]);
    expect(m.dropped.map((e) => [e.bookId, e.title, e.rank])).toEqual([["e", "Echo", 5]]);
    expect(m.unchanged).toBe(1);
  });
});

describe("research over a service, with the snapshot store", () => {
  it("stores each ranking and reports movement since the previous snapshot of the board", async () => {
    const source = new HttpSource({ baseUrl: fx.baseUrl });
    const research = (now: string) => new Research(root, [source], { staleAfterHours: 24, now: at(now) });

    const first = await research("2025-06-01T09:00:00.000Z").rankings("qidian", "yuepiao");
    expect(first.movement).toBeNull();
    expect(first.stored).toMatchObject({ added: true, snapshotsOfBoard: 1 });
    expect(existsSync(researchDbPath(root))).toBe(true);

    board = snapshotJson("qidian", "yuepiao", WEEK2, week2);
    const second = await research("2025-06-08T09:00:00.000Z").rankings("qidian", "yuepiao");
    expect(second.stored).toMatchObject({ added: true, snapshotsOfBoard: 2 });
    expect(second.movement?.previousFetchedAt).toBe(WEEK1);
    expect(second.movement?.entered.map((e) => e.bookId)).toEqual(["f"]);
    expect(second.movement?.climbed.map((e) => e.bookId)).toEqual(["c"]);
    expect(second.movement?.dropped.map((e) => e.bookId)).toEqual(["e"]);

    // Asked again before the service collects: no new snapshot, the same movement, one more retrieval.
    const again = await research("2025-06-08T10:00:00.000Z").rankings("qidian", "yuepiao");
    expect(again.stored).toMatchObject({ added: false, snapshotsOfBoard: 2 });
    expect(again.movement?.previousFetchedAt).toBe(WEEK1);
    const rows = storedSnapshots(root, "qidian", "yuepiao");
    expect(rows.map((r) => [r.fetchedAt, r.retrievals, r.lastRetrievedAt])).toEqual([
      [WEEK2, 2, "2025-06-08T10:00:00.000Z"],
      [WEEK1, 1, "2025-06-01T09:00:00.000Z"],
    ]);
    expect(storedBoards(root)).toEqual([
      {
        platform: "qidian",
        board: "yuepiao",
        boardName: "Board yuepiao",
        snapshots: 2,
        latestFetchedAt: WEEK2,
        lastRetrievedAt: "2025-06-08T10:00:00.000Z",
      },
    ]);

    // The book's ranks in the stored snapshots come with its detail.
    const book = await research("2025-06-08T10:00:00.000Z").book("qidian", "c");
    expect(book.rankHistory.map((p) => [p.board, p.rank, p.fetchedAt])).toEqual([
      ["yuepiao", 1, WEEK2],
      ["yuepiao", 3, WEEK1],
    ]);

    // The store is WAL, as every NeuroBook database.
    const db = new Database(researchDbPath(root), { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.close();
  });

  it("compares snapshots of one source only: the offline sample never counts as a service's past", async () => {
    await new Research(root, [sampleSource()], { staleAfterHours: 24 }).rankings("qidian", "yuepiao");
    board = snapshotJson("qidian", "yuepiao", "2025-07-01T08:00:00.000Z", week1);
    const r = await new Research(root, [new HttpSource({ baseUrl: fx.baseUrl })], {
      staleAfterHours: 24,
    }).rankings("qidian", "yuepiao");
    expect(r.movement).toBeNull();
    expect(storedSnapshots(root, "qidian", "yuepiao").map((s) => s.source)).toEqual([
      `the research service at ${fx.baseUrl}`,
      "the offline sample (examples/research, invented books)",
      "the offline sample (examples/research, invented books)",
    ]);
  });

  it("imports a folder's archive, so its two snapshots show movement on the first request", async () => {
    const r = await new Research(root, [sampleSource()], { staleAfterHours: 24 }).rankings(
      "fanqie",
      "0_1_1139",
    );
    expect(r.movement?.previousFetchedAt).toBe("2025-06-02T04:00:00.000Z");
    expect(r.movement?.entered.map((e) => e.title)).toEqual(["深夜便利店只收冥币"]);
    expect(r.movement?.dropped.map((e) => e.title)).toEqual(["重生之我在县城卖烧饼"]);
    expect(storedSnapshots(root, "fanqie", "0_1_1139").map((s) => s.retrievals)).toEqual([1, 0]);
  });

  it("asks the next source when one does not know a board, but stops at a source that fails", async () => {
    const files = join(root, "files");
    writeSnapshotDir(files, [snapshotJson("fanqie", "new", WEEK2, [["x", "X"]])]);
    const folder = new FileSource({ dir: files, key: "file", label: "the snapshot files in files" });
    const chain = new Research(root, [new HttpSource({ baseUrl: fx.baseUrl }), folder], {
      staleAfterHours: 24,
    });
    const r = await chain.rankings("fanqie", "new");
    expect(r.source).toBe("the snapshot files in files");
    const down = new Research(root, [new HttpSource({ baseUrl: await closedPort() }), folder], {
      staleAfterHours: 24,
    });
    const e = await failure(down.rankings("fanqie", "new"));
    expect(e.code).toBe("io_error");
    expect(e.message).toMatch(
      /^Cannot reach the research service at http:\/\/127\.0\.0\.1:\d+ \(connection refused\)/,
    );
  });

  it("when no source knows a board, says what each source said and which boards the store has", async () => {
    const service = new Research(root, [new HttpSource({ baseUrl: fx.baseUrl })], { staleAfterHours: 24 });
    await service.rankings("qidian", "yuepiao");
    const e = await failure(service.rankings("qidian", "hotsales"));
    expect(e.code).toBe("not_found");
    expect(e.message).toBe(
      `No board qidian/hotsales at the research service ${fx.baseUrl} (HTTP 404: unknown)\nBoards of qidian with stored snapshots: yuepiao (Board yuepiao)`,
    );
    const book = await failure(service.book("qidian", "zz"));
    expect(book.message).toContain("Books seen on stored qidian boards: a (Alpha), b (Bravo), c (Charlie)");
    expect(() => storedSnapshots(root, "qidian", "hotsales")).toThrow(
      "No stored snapshots of qidian/hotsales. Boards with stored snapshots: qidian/yuepiao",
    );
  });
});

describe("staleness", () => {
  it("is stale past the configured age, or when the source marked it so, with the reasons", () => {
    const now = new Date("2025-06-08T12:00:00.000Z");
    expect(freshness("2025-06-08T10:00:00.000Z", now, 3)).toEqual({ ageHours: 2, stale: false, reasons: [] });
    const old = freshness("2025-06-08T08:00:00.000Z", now, 3);
    expect(old.stale).toBe(true);
    expect(old.reasons).toEqual(["it was collected 4 hours ago, longer than 3 h (research.staleAfterHours)"]);
    const marked = freshness("2025-06-08T11:00:00.000Z", now, 3, true);
    expect(marked).toMatchObject({
      stale: true,
      reasons: ["the source marked it stale: its last refresh failed"],
    });
    // A time ahead of the clock is not negative age.
    expect(freshness("2025-06-09T00:00:00.000Z", now, 3).ageHours).toBe(0);
  });

  it("flags a book detail by the workspace's limit and by the source's own flag", async () => {
    const files = join(root, "files");
    writeSnapshotDir(
      files,
      [],
      [
        bookJson("qidian", "1", "2025-06-08T10:00:00.000Z"),
        bookJson("qidian", "2", "2025-06-08T11:30:00.000Z", { stale: true }),
      ],
    );
    const research = (hours: number) =>
      new Research(root, [new FileSource({ dir: files, key: "f", label: "files" })], {
        staleAfterHours: hours,
        now: at("2025-06-08T12:00:00.000Z"),
      });
    expect((await research(3).book("qidian", "1")).freshness.stale).toBe(false);
    expect((await research(1).book("qidian", "1")).freshness).toMatchObject({ stale: true, ageHours: 2 });
    expect((await research(3).book("qidian", "2")).freshness.reasons).toEqual([
      "the source marked it stale: its last refresh failed",
    ]);
  });
});
