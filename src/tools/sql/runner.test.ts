import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NbError } from "../../core/errors.js";
import { SqlRunner, type StatementRequest } from "./runner.js";

const RUNAWAY =
  "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000000000) SELECT count(*) FROM c";

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "nb-sqlrunner-"));
  file = join(dir, "project.sqlite");
  const db = new Database(file);
  db.exec("CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2), (3);");
  db.close();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const req = (sql: string, extra: Partial<StatementRequest> = {}): StatementRequest => ({
  sql,
  command: "SELECT",
  maxRows: 200,
  maxChars: 1_000_000,
  maxCellChars: 10_000,
  allowWrite: false,
  ...extra,
});

async function failure(p: Promise<unknown>): Promise<NbError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof NbError) return e;
    throw e;
  }
  throw new Error("expected a failure");
}

describe("SqlRunner", () => {
  it("honours its own time limit and recovers", async () => {
    const runner = new SqlRunner(file, 300);
    try {
      expect((await failure(runner.run(req(RUNAWAY)))).code).toBe("timeout");
      expect((await runner.run(req("SELECT sum(a) AS s FROM t"))).rows).toEqual([[6]]);
    } finally {
      runner.close();
    }
  });

  it("stops a statement when its call is aborted", async () => {
    const runner = new SqlRunner(file, 60_000);
    try {
      await runner.run(req("SELECT 1"));
      const abort = new AbortController();
      setTimeout(() => abort.abort(), 100);
      expect((await failure(runner.run(req(RUNAWAY), abort.signal))).code).toBe("aborted");
      expect((await runner.run(req("SELECT count(*) FROM t"))).rows).toEqual([[3]]);
    } finally {
      runner.close();
    }
  });

  it("refuses a write when writes are not allowed, even if it reached the runner", async () => {
    const runner = new SqlRunner(file);
    try {
      const e = await failure(runner.run(req("DELETE FROM t", { command: "DELETE" })));
      expect(e.code).toBe("not_allowed");
      expect((await runner.run(req("SELECT count(*) FROM t"))).rows).toEqual([[3]]);
      expect(
        (await runner.run(req("DELETE FROM t WHERE a = 1", { command: "DELETE", allowWrite: true }))).changes,
      ).toBe(1);
    } finally {
      runner.close();
    }
  });

  it("answers not_found when the database file does not exist", async () => {
    const runner = new SqlRunner(join(dir, "missing.sqlite"));
    try {
      expect((await failure(runner.run(req("SELECT 1")))).code).toBe("not_found");
    } finally {
      runner.close();
    }
  });
});
