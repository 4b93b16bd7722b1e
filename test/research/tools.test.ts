import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { makeTestBed, type TestBed } from "../helpers.js";
import { closedPort, type Fixture, json, snapshotJson, startFixture, writeJson } from "./fixture.js";

let bed: TestBed;
let fx: Fixture;

beforeAll(async () => {
  fx = await startFixture((req, res) => {
    if (req.url === "/v1/rankings/fanqie/0_1_1139") {
      json(res, 200, snapshotJson("fanqie", "0_1_1139", new Date().toISOString(), [["9", "Nine"]]));
    } else json(res, 404, { message: "no snapshot yet" });
  });
});
afterAll(() => fx.close());
beforeEach(() => {
  bed = makeTestBed("novel");
});
afterEach(() => bed.cleanup());

function workspaceConfig(research: unknown): void {
  writeFileSync(join(bed.ws.nbookDir, "config.json"), JSON.stringify({ providers: {}, research }));
}

describe("novel_rankings and novel_book_detail", () => {
  it("are read tools of the research group", () => {
    const registry = createToolRegistry();
    for (const key of ["novel_rankings", "novel_book_detail"]) {
      expect(registry.get(key)).toMatchObject({ group: "research", effect: "read" });
    }
  });

  it("answer from the offline sample with text and details, in a read-only mode too (the store is a cache)", async () => {
    const r = await bed.call("novel_rankings", { platform: "qidian", board: "yuepiao" }, { mode: "plan" });
    if (!r.ok) throw new Error(r.error.message);
    const lines = r.text.split("\n");
    expect(lines[0]).toMatch(
      /^月票榜 \(qidian\/yuepiao\) — cached snapshot collected 2025-06-08 08:00 UTC; stale: it was collected \d+ days ago/,
    );
    expect(lines[1]).toBe("Source: the offline sample (examples/research, invented books)");
    expect(lines[2]).toBe(
      "Movement since the snapshot of 2025-06-01 08:00 UTC: 1 new, 3 up, 3 down, 1 dropped, 1 unchanged.",
    );
    expect(r.text).toContain("1. 潮钟守夜人 — 盐泽旧客 (id 1040000101)  ▲1 (was #2)");
    expect(r.text).toContain("5. 算盘仙人 — 陈二两 (id 1040000109)  new");
    expect(r.text).toContain("8. 龙骨渡口 — 夜航船 (id 1040000107)  =");
    expect(r.text).toContain("- 雾港来信 — 林间有鹿 (id 1040000110, was #6)");
    expect(r.text).toContain("This board carries no metrics: its numbers are unknown, not zero.");
    expect(r.details).toMatchObject({
      platform: "qidian",
      board: "yuepiao",
      boardName: "月票榜",
      fetchedAt: "2025-06-08T08:00:00.000Z",
      stale: true,
      stored: { added: true, snapshotsOfBoard: 2 },
      movement: { entered: [{ bookId: "1040000109", rank: 5 }] },
    });

    const fanqie = await bed.call(
      "novel_rankings",
      { platform: "fanqie", board: "0_1_1139" },
      { mode: "discuss" },
    );
    expect(fanqie.ok && fanqie.text).toContain(
      "   连载中 · 44.7万字 · 138.8万 reads · 都市脑洞 · latest: 第152章 差评是心魔",
    );

    const book = await bed.call(
      "novel_book_detail",
      { platform: "qidian", bookId: "1040000102" },
      { mode: "plan" },
    );
    if (!book.ok) throw new Error(book.error.message);
    expect(book.text.split("\n")[0]).toMatch(
      /^⚠ Stale — may be out of date: the source marked it stale: its last refresh failed; it was collected \d+ days ago/,
    );
    expect(book.text).toContain("qidian, id 1040000102 · 连载 · 247万字");
    expect(book.text).toContain(
      "Ranks in stored snapshots: 月票榜 (yuepiao) #2 on 2025-06-08; 月票榜 (yuepiao) #1 on 2025-06-01",
    );
    expect(book.details).toMatchObject({ stale: true, book: { externalBookId: "1040000102", stale: true } });
  });

  it("validate their input strictly", async () => {
    const extra = await bed.call("novel_rankings", { platform: "qidian", board: "yuepiao", live: true });
    expect(!extra.ok && extra.error.fields).toEqual([{ pointer: "/live", message: "unknown field" }]);
    const platform = await bed.call("novel_book_detail", { platform: "Qidian!", bookId: "1" });
    expect(!platform.ok && platform.error.fields?.[0].pointer).toBe("/platform");
    const empty = await bed.call("novel_book_detail", { platform: "qidian", bookId: "" });
    expect(!empty.ok && empty.error.code).toBe("invalid_input");
  });

  it("answer an unknown platform, board or book with not_found listing the known ones", async () => {
    const board = await bed.call("novel_rankings", { platform: "qidian", board: "hotsales" });
    expect(!board.ok && board.error).toEqual({
      code: "not_found",
      message:
        "No board hotsales for qidian in the offline sample (examples/research, invented books). Boards it has: yuepiao (月票榜)",
    });
    const book = await bed.call("novel_book_detail", { platform: "fanqie", bookId: "1" });
    expect(!book.ok && book.error.message).toContain(
      "Books it has: 7390000000000000202 (我的室友是条龙), 7390000000000000206 (外卖骑手的修仙日志)",
    );
    const platform = await bed.call("novel_rankings", { platform: "jjwxc", board: "x" });
    expect(!platform.ok && platform.error.message).toContain("Platforms it has: fanqie, qidian");
  });

  it("use the workspace's configured service, and name its URL when it cannot be reached", async () => {
    workspaceConfig({ http: { baseUrl: fx.baseUrl } });
    const r = await bed.call("novel_rankings", { platform: "fanqie", board: "0_1_1139" });
    expect(r.ok && r.text).toContain(`Source: the research service at ${fx.baseUrl}`);
    expect(r.ok && r.text).toContain("fresh (collected 0 minutes ago)");
    // With a service configured, the offline sample is not consulted.
    const missing = await bed.call("novel_rankings", { platform: "qidian", board: "yuepiao" });
    expect(!missing.ok && missing.error.message).toBe(
      `No board qidian/yuepiao at the research service ${fx.baseUrl} (HTTP 404: no snapshot yet)\nPlatforms with stored snapshots: fanqie`,
    );

    const down = await closedPort();
    workspaceConfig({ http: { baseUrl: down } });
    const e = await bed.call("novel_book_detail", { platform: "qidian", bookId: "1" });
    expect(!e.ok && e.error).toEqual({
      code: "io_error",
      message: `Cannot reach the research service at ${down} (connection refused). Is it running? Its address is research.http.baseUrl in .nbook/config.json (docs/research.md).`,
    });
  });

  it("never show a host path: a broken file is named relative to the configured folder", async () => {
    workspaceConfig({ dir: "research-data" });
    const file = join(bed.ws.root, "research-data", "qidian", "rankings", "yuepiao", "a.json");
    writeJson(file, { platform: "qidian" });
    const r = await bed.call("novel_rankings", { platform: "qidian", board: "yuepiao" });
    expect(!r.ok && r.error.code).toBe("io_error");
    expect(!r.ok && r.error.message).toContain(
      "the snapshot files in research-data: qidian/rankings/yuepiao/a.json is not in the expected shape",
    );
    expect(!r.ok && r.error.message).not.toContain(bed.dir);
  });

  it("refuse a project config that redirects the workspace's service", async () => {
    workspaceConfig({ http: { baseUrl: fx.baseUrl } });
    writeFileSync(
      join(bed.project.root, ".nbook", "config.json"),
      JSON.stringify({ research: { http: { baseUrl: "http://127.0.0.1:1" } } }),
    );
    const asked = fx.paths.length;
    const r = await bed.call("novel_rankings", { platform: "fanqie", board: "0_1_1139" });
    expect(!r.ok && r.error.code).toBe("config_error");
    expect(!r.ok && r.error.message).toContain("a project may not redirect the workspace's research service");
    expect(fx.paths.length).toBe(asked);
  });
});
