import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Workspace } from "../../src/workspace/workspace.js";
import { runNbookInProcess } from "../helpers.js";

let dir: string;
let ws: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "nbook-research-cli-"));
  ws = join(dir, "ws");
  Workspace.init(ws).close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const nbook = (args: string[]) => runNbookInProcess(["research", ...args], { cwd: ws });

describe("nbook research, on the offline sample", () => {
  it("lists nothing before a ranking is fetched, then the boards and each stored snapshot", async () => {
    const empty = await nbook(["snapshots"]);
    expect(empty.status).toBe(0);
    expect(empty.stdout).toContain("No ranking snapshots stored yet.");

    const r = await nbook(["rankings", "qidian", "yuepiao"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("Movement since the snapshot of 2025-06-01 08:00 UTC: 1 new, 3 up, 3 down");
    expect(r.stdout).toContain("5. 算盘仙人 — 陈二两 (id 1040000109)  new");

    const boards = await nbook(["snapshots"]);
    expect(boards.stdout).toMatch(
      /^qidian\/yuepiao +2 snapshots +latest collected 2025-06-08 08:00 UTC {2}月票榜$/m,
    );
    const list = JSON.parse((await nbook(["snapshots", "qidian", "yuepiao", "--json"])).stdout);
    expect(
      list.snapshots.map((s: { fetchedAt: string; retrievals: number }) => [s.fetchedAt, s.retrievals]),
    ).toEqual([
      ["2025-06-08T08:00:00.000Z", 1],
      ["2025-06-01T08:00:00.000Z", 0],
    ]);
    const text = (await nbook(["snapshots", "qidian", "yuepiao"])).stdout;
    expect(text).toContain("月票榜 (qidian/yuepiao): 2 stored snapshots, newest first");
    expect(text).toContain("kept from the source's archive");
  });

  it("shows a book, stale, with its ranks; --json prints the tool's one object", async () => {
    const r = await nbook(["book", "qidian", "1040000102"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^⚠ Stale — may be out of date: the source marked it stale/);
    expect(r.stdout).toContain("星砂账簿 — 迟暮北");
    const j = JSON.parse((await nbook(["book", "fanqie", "7390000000000000202", "--json"])).stdout);
    expect(j).toMatchObject({ ok: true, details: { stale: true, book: { title: "我的室友是条龙" } } });
  });

  it("answers an unknown board with the known ones (exit 1), and a half-given board as a usage error (exit 2)", async () => {
    const r = await nbook(["rankings", "fanqie", "hot"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("error [not_found]: No board hot for fanqie in the offline sample");
    expect(r.stderr).toContain("Boards it has: 0_1_1139 (都市脑洞 · 阅读榜)");
    const half = await nbook(["snapshots", "qidian"]);
    expect(half.status).toBe(2);
    expect(half.stderr).toContain("Give both a platform and a board");
    const none = await nbook(["snapshots", "fanqie", "hot", "--json"]);
    expect(none.status).toBe(2);
    expect(JSON.parse(none.stdout).error.message).toBe(
      "No stored snapshots of fanqie/hot. Boards with stored snapshots: qidian/yuepiao",
    );
  });
});
