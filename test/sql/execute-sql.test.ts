import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Mode } from "../../src/core/modes.js";
import { plotDb } from "../../src/plot/db.js";
import type { DispatchResult } from "../../src/tools/types.js";
import { makeTestBed, type TestBed } from "../helpers.js";

let bed: TestBed;
let nbookDir: string;
let worldFile: string;

beforeAll(() => {
  bed = makeTestBed("novel");
  const db = plotDb(bed.project);
  const insert = db.prepare("INSERT INTO story_act (sort_order, name, title) VALUES (?, ?, ?)");
  db.transaction(() => {
    for (let i = 0; i < 250; i++) insert.run(i, `act-${i}`, `Act ${i}`);
  })();
  nbookDir = join(bed.project.root, ".nbook");
  worldFile = bed.project.dbPath("world");
  const world = new Database(worldFile);
  world.exec("CREATE TABLE secret (v TEXT); INSERT INTO secret VALUES ('the world state');");
  world.close();
});
afterAll(() => bed.cleanup());

function ok(r: DispatchResult) {
  if (!r.ok) throw new Error(`expected ok, got ${r.error.code}: ${r.error.message}`);
  return r as { ok: true; text: string; details: any };
}
function err(r: DispatchResult) {
  if (r.ok) throw new Error(`expected an error, got: ${r.text}`);
  return r.error;
}
const sql = (
  s: string,
  extra: Record<string, unknown> = {},
  opts: { mode?: Mode; approved?: boolean } = {},
) => bed.call("execute_sql", { sql: s, ...extra }, opts);
const actTitle = (id: number) =>
  (plotDb(bed.project).prepare("SELECT title FROM story_act WHERE id = ?").get(id) as { title: string })
    .title;

/** PIDs of live SQL processes started by this test process. */
function sqlProcesses(): number[] {
  const out: number[] = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] === "Z" || Number(fields[1]) !== process.pid) continue;
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("sql-process.mjs")) out.push(Number(pid));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

describe("execute_sql: reads", () => {
  it("returns a compact table and details.rows", async () => {
    const r = ok(await sql("SELECT id, name FROM story_act WHERE sort_order < 2 ORDER BY sort_order"));
    expect(r.details.rows).toEqual([
      { id: 1, name: "act-0" },
      { id: 2, name: "act-1" },
    ]);
    expect(r.details.columns).toEqual(["id", "name"]);
    expect(r.details.truncated).toBe(false);
    expect(r.details.effect).toBe("read");
    expect(r.text).toContain("id | name\n1 | act-0\n2 | act-1");
  });

  it("caps reads at 200 rows with truncated: true and a hint", async () => {
    const r = ok(await sql("SELECT id FROM story_act ORDER BY id"));
    expect(r.details.rowCount).toBe(200);
    expect(r.details.rows.at(-1)).toEqual({ id: 200 });
    expect(r.details.truncated).toBe(true);
    expect(r.text).toMatch(/truncated: more rows exist.*LIMIT\/OFFSET/);
    const exact = ok(await sql("SELECT id FROM story_act ORDER BY id LIMIT 200"));
    expect(exact.details.truncated).toBe(false);
  });

  it("cuts cells over 10,000 characters and stops adding rows after about 1,000,000 characters", async () => {
    const long = ok(await sql("SELECT hex(zeroblob(6000)) AS text, zeroblob(6000) AS blob, 'short' AS s"));
    const row = long.details.rows[0];
    expect(row.text).toBe(`${"0".repeat(10_000)}…`);
    expect(row.blob).toBe(`x'${"0".repeat(10_000)}…'`);
    expect(row.s).toBe("short");
    expect(long.details).toMatchObject({ cutCells: 2, truncated: false });
    expect(long.text).toContain("2 cells longer than 10000 characters cut short");
    const wide = ok(
      await sql(
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 150) SELECT x, hex(zeroblob(5000)) AS pad FROM c",
      ),
    );
    expect(wide.details.rowCount).toBe(100);
    expect(wide.details.truncated).toBe(true);
    expect(wide.details.cutCells).toBeUndefined();
  });

  it("allows WITH … SELECT, VALUES, EXPLAIN, a trailing semicolon and keywords inside strings", async () => {
    expect(ok(await sql("WITH a AS (SELECT 2 AS n) SELECT n * 21 AS v FROM a;")).details.rows).toEqual([
      { v: 42 },
    ]);
    expect(ok(await sql("VALUES (1, 'x'), (2, 'y')")).details.rowCount).toBe(2);
    expect(
      ok(await sql("EXPLAIN QUERY PLAN SELECT * FROM story_act WHERE name = 'x'")).details.rowCount,
    ).toBeGreaterThan(0);
    const s = ok(
      await sql(
        "-- a comment; with a semicolon\nSELECT 'drop table x; attach' AS \"create\" /* ; */ ;  -- done",
      ),
    );
    expect(s.details.rows).toEqual([{ create: "drop table x; attach" }]);
  });

  it("binds positional and named params", async () => {
    const pos = ok(
      await sql("SELECT name FROM story_act WHERE id = ? OR id = ? ORDER BY id", { params: [3, 4] }),
    );
    expect(pos.details.rows).toEqual([{ name: "act-2" }, { name: "act-3" }]);
    const named = ok(
      await sql("SELECT :a AS a, @b AS b, $c AS c, :t AS t", {
        params: { a: "x", "@b": null, $c: 1.5, t: true },
      }),
    );
    expect(named.details.rows).toEqual([{ a: "x", b: null, c: 1.5, t: 1 }]);
    const injection = "act-1' OR '1'='1";
    expect(
      ok(await sql("SELECT id FROM story_act WHERE name = ?", { params: [injection] })).details.rowCount,
    ).toBe(0);
  });

  it("answers invalid_input for missing params and bad SQL", async () => {
    const e = err(await sql("SELECT ? + ?", { params: [1] }));
    expect(e.code).toBe("invalid_input");
    expect(e.fields?.[0].pointer).toBe("/params");
    const bad = err(await sql("SELECT nope FROM story_act"));
    expect(bad.code).toBe("invalid_input");
    expect(bad.message).toContain("no such column");
  });

  it("keeps duplicate column names apart", async () => {
    expect(ok(await sql("SELECT 1 AS a, 2 AS a")).details.rows).toEqual([{ a: 1, "a:2": 2 }]);
  });
});

describe("execute_sql: input", () => {
  it("needs exactly one of sql and describe, params only with sql", async () => {
    const none = err(await bed.call("execute_sql", {}));
    expect(none.code).toBe("invalid_input");
    expect(none.fields?.map((f) => f.pointer)).toEqual(["/sql"]);
    const both = err(await bed.call("execute_sql", { sql: "SELECT 1", describe: true }));
    expect(both.fields?.map((f) => f.pointer)).toEqual(["/describe"]);
    const orphan = err(await bed.call("execute_sql", { describe: true, params: [1] }));
    expect(orphan.fields?.map((f) => f.pointer)).toEqual(["/params"]);
    const extra = err(await bed.call("execute_sql", { sql: "SELECT 1", path: "world.sqlite" }));
    expect(extra.fields?.map((f) => f.pointer)).toEqual(["/path"]);
  });

  it("is in leader.default's allowlist, not the writer's", async () => {
    expect(
      ok(await bed.call("execute_sql", { sql: "SELECT 1 AS one" }, { profile: "leader.default" })).details
        .rows,
    ).toEqual([{ one: 1 }]);
    expect(err(await bed.call("execute_sql", { sql: "SELECT 1" }, { profile: "writer" })).code).toBe(
      "not_allowed",
    );
  });

  it("needs a project", async () => {
    const e = err(await bed.call("execute_sql", { sql: "SELECT 1" }, { project: null }));
    expect(e.code).toBe("invalid_input");
    expect(e.message).toContain("project");
  });
});

describe("execute_sql: refusals", () => {
  const refused: [string, string][] = [
    ["CREATE TABLE x (a)", "DDL"],
    ["create temp table x (a)", "DDL"],
    ["CREATE INDEX i ON story_act(title)", "DDL"],
    ["DROP TABLE story_act", "DDL"],
    ["ALTER TABLE story_act ADD COLUMN x", "DDL"],
    ["PRAGMA foreign_keys = OFF", "PRAGMA"],
    ["pragma table_info('story_act')", "PRAGMA"],
    ["SELECT * FROM pragma_table_info('story_act')", "PRAGMA"],
    ['SELECT file FROM "PRAGMA_DATABASE_LIST"', "PRAGMA"],
    ["ATTACH 'other.sqlite' AS other", "ATTACH"],
    ["DETACH other", "DETACH"],
    ["VACUUM", "VACUUM"],
    ["BEGIN", "Transactions"],
    ["BEGIN IMMEDIATE TRANSACTION", "Transactions"],
    ["COMMIT", "Transactions"],
    ["END", "Transactions"],
    ["ROLLBACK", "Transactions"],
    ["SAVEPOINT s", "Transactions"],
    ["RELEASE s", "Transactions"],
    ["REPLACE INTO story_act (sort_order, name, title) VALUES (0, 'a', 'b')", "REPLACE"],
    ["REINDEX", "REINDEX"],
    ["ANALYZE", "ANALYZE"],
    ["SELECT load_extension('/tmp/evil')", "load_extension"],
    ["EXPLAIN ATTACH 'x' AS y", "EXPLAIN"],
    ["/* hidden */ -- also hidden\n  drop table story_act", "DDL"],
    ["UPSERT story_act", "not allowed"],
  ];
  for (const [statement, reason] of refused) {
    it(`refuses ${JSON.stringify(statement)}`, async () => {
      const e = err(await sql(statement));
      expect(e.code).toBe("not_allowed");
      expect(e.message).toContain(reason);
    });
  }

  it("refuses two statements in one string and runs neither", async () => {
    for (const s of [
      "SELECT 1; SELECT 2",
      "UPDATE story_act SET title = 'two' WHERE id = 1; DROP TABLE story_act",
      "SELECT ';'; UPDATE story_act SET title = 'two' WHERE id = 1",
      "SELECT 1 /* ; */; -- x\n DELETE FROM story_act",
    ]) {
      const e = err(await sql(s));
      expect(e.code).toBe("not_allowed");
      expect(e.message).toContain("more than one");
    }
    expect(actTitle(1)).toBe("Act 0");
    expect(ok(await sql("SELECT count(*) AS n FROM story_act")).details.rows).toEqual([{ n: 250 }]);
  });

  it("a refused statement in discuss mode is refused, not offered for approval", async () => {
    expect(err(await sql("DROP TABLE story_act", {}, { mode: "discuss" })).code).toBe("not_allowed");
  });
});

describe("execute_sql: writes and modes", () => {
  it("runs writes in normal mode and reports the changes", async () => {
    const r = ok(await sql("UPDATE story_act SET title = ? WHERE id IN (10, 11)", { params: ["Renamed"] }));
    expect(r.details).toMatchObject({ effect: "write", changes: 2, command: "UPDATE" });
    expect(r.text).toContain("2 rows changed");
    expect(actTitle(10)).toBe("Renamed");
    const cte = ok(
      await sql(
        "WITH t AS (SELECT 12 AS id) UPDATE story_act SET title = 'Via CTE' WHERE id IN (SELECT id FROM t)",
      ),
    );
    expect(cte.details.changes).toBe(1);
    expect(actTitle(12)).toBe("Via CTE");
    const ins = ok(
      await sql(
        "INSERT INTO story_act (sort_order, name, title) VALUES (900, 'new-act', 'New') RETURNING id, name",
      ),
    );
    expect(ins.details).toMatchObject({ changes: 1, rows: [{ name: "new-act" }] });
    ok(await sql("DELETE FROM story_act WHERE name = 'new-act'"));
  });

  it("enforces foreign keys and constraints", async () => {
    const fk = err(
      await sql("INSERT INTO story_chapter (act_id, sort_order, name, title) VALUES (99999, 0, 'c', 'C')"),
    );
    expect(fk.code).toBe("conflict");
    expect(fk.message).toContain("FOREIGN KEY");
    const check = err(await sql("UPDATE story_act SET status = 'bogus' WHERE id = 1"));
    expect(check.code).toBe("conflict");
    expect(actTitle(1)).toBe("Act 0");
  });

  it("stops a write in discuss mode with a row-count preview, and changes nothing", async () => {
    const before = ok(await sql("SELECT id, title FROM story_act ORDER BY id")).details.rows;
    const r = err(
      await sql("UPDATE story_act SET title = 'Gone' WHERE sort_order < 5", {}, { mode: "discuss" }),
    );
    expect(r.code).toBe("approval_required");
    expect(r.message).toContain("would change 5 rows");
    expect((r.details as any).preview.details.changes).toBe(5);
    expect(ok(await sql("SELECT id, title FROM story_act ORDER BY id")).details.rows).toEqual(before);
    expect(actTitle(1)).toBe("Act 0");

    const del = err(await sql("DELETE FROM story_act WHERE id > 240 RETURNING id", {}, { mode: "plan" }));
    expect(del.code).toBe("approval_required");
    expect((del.details as any).preview.details).toMatchObject({
      changes: 10,
      rows: expect.arrayContaining([{ id: 250 }]),
    });
    expect(ok(await sql("SELECT count(*) AS n FROM story_act")).details.rows).toEqual([{ n: 250 }]);
  });

  it("lets reads (and EXPLAIN of a write) through in discuss mode, and runs an approved write", async () => {
    expect(ok(await sql("SELECT count(*) AS n FROM story_act", {}, { mode: "discuss" })).details.effect).toBe(
      "read",
    );
    ok(await sql("EXPLAIN DELETE FROM story_act", {}, { mode: "discuss" }));
    expect(ok(await sql("SELECT count(*) AS n FROM story_act")).details.rows).toEqual([{ n: 250 }]);
    const approved = ok(
      await sql(
        "UPDATE story_act SET title = 'Approved' WHERE id = 20",
        {},
        { mode: "discuss", approved: true },
      ),
    );
    expect(approved.details.changes).toBe(1);
    expect(actTitle(20)).toBe("Approved");
  });
});

describe("execute_sql: reach", () => {
  it("cannot read or change world.sqlite or any other file", async () => {
    const worldBytes = readFileSync(worldFile);
    const filesBefore = readdirSync(nbookDir).sort();
    const attempts = [
      `ATTACH '${worldFile}' AS w`,
      "ATTACH 'world.sqlite' AS w",
      "SELECT * FROM w.secret",
      "SELECT * FROM secret",
      `VACUUM INTO '${join(nbookDir, "copy.sqlite")}'`,
      "VACUUM INTO 'copy.sqlite'",
      "SELECT readfile('project.yaml')",
      `SELECT writefile('${join(nbookDir, "x.txt")}', 'x')`,
      "SELECT load_extension('fileio')",
      "SELECT sqlite_attach('world.sqlite', 'w', NULL)",
      "WITH x AS (SELECT 1) SELECT * FROM main.secret",
      "INSERT INTO secret VALUES ('overwritten')",
    ];
    for (const a of attempts) {
      const e = err(await sql(a));
      expect(["not_allowed", "invalid_input"]).toContain(e.code);
      expect(e.message).not.toContain(bed.dir);
    }
    expect(readFileSync(worldFile).equals(worldBytes)).toBe(true);
    expect(existsSync(join(nbookDir, "copy.sqlite"))).toBe(false);
    expect(existsSync(join(bed.project.root, "copy.sqlite"))).toBe(false);
    expect(readdirSync(nbookDir).sort()).toEqual(filesBefore);
  });
});

describe("execute_sql: time limit", () => {
  it("stops a runaway query with timeout, kills its process, and the next query works", async () => {
    ok(await sql("SELECT 1"));
    const [before] = sqlProcesses();
    expect(before).toBeDefined();
    const e = err(
      await sql(
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000000000) SELECT count(*) FROM c",
      ),
    );
    expect(e.code).toBe("timeout");
    await vi.waitFor(() => expect(sqlProcesses()).not.toContain(before), { timeout: 5000 });
    expect(ok(await sql("SELECT count(*) AS n FROM story_act")).details.rows).toEqual([{ n: 250 }]);
    expect(sqlProcesses()).toHaveLength(1);
  });

  it("a runaway write is stopped and leaves nothing changed", async () => {
    const e = err(
      await sql(
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000000000) UPDATE story_act SET title = 'Runaway' WHERE id = (SELECT count(*) FROM c)",
      ),
    );
    expect(e.code).toBe("timeout");
    expect(ok(await sql("SELECT count(*) AS n FROM story_act WHERE title = 'Runaway'")).details.rows).toEqual(
      [{ n: 0 }],
    );
  });
});

describe("execute_sql {describe: true}", () => {
  it("lists the plot tables with live columns and their meanings", async () => {
    const r = ok(await bed.call("execute_sql", { describe: true }));
    const tables = r.details.tables as any[];
    const scene = tables.find((t) => t.name === "story_scene");
    expect(scene.meaning).toMatch(/Scene/);
    const chapterId = scene.columns.find((c: any) => c.name === "chapter_id");
    expect(chapterId).toMatchObject({ type: "INTEGER", references: "story_chapter.id" });
    expect(chapterId.meaning).toContain("chapter");
    expect(scene.columns.some((c: any) => c.name === "scene_id")).toBe(false);
    expect(tables.some((t) => t.name.startsWith("sqlite"))).toBe(false);
    expect(r.text).toContain("## story_promise_beat");
    expect(r.text).toMatch(/- kind \(TEXT, NOT NULL.*\): plant \| advance \| setback \| payoff/);
  });
});
