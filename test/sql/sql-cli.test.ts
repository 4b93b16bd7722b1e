import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runNbookInProcess } from "../helpers.js";

let home: string;
let ws: string;

function nbook(args: string[], cwd = join(ws, "novel")) {
  return runNbookInProcess(args, { cwd, env: { NBOOK_WORKSPACE: "" } });
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "nbook-sql-cli-"));
  ws = join(home, "ws");
  expect((await nbook(["init", ws], home)).status).toBe(0);
  expect((await nbook(["project", "create", "novel", "--title", "Tides"], ws)).status).toBe(0);
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("nbook sql", () => {
  it("reads the project database as a table, or as one JSON object", async () => {
    const r = await nbook(["sql", "SELECT id, title FROM story"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("id | title\n1 | Tides\n(1 row)\n");
    const j = await nbook(["sql", "SELECT title FROM story WHERE id = ?", "--params", "[1]", "--json"]);
    expect(JSON.parse(j.stdout)).toMatchObject({ ok: true, details: { rows: [{ title: "Tides" }] } });
  });

  it("stops a write in discuss mode with a preview and runs it with --approve", async () => {
    const insert = "INSERT INTO story_act (sort_order, name, title) VALUES (0, 'one', 'One')";
    const stopped = await nbook(["sql", insert, "--mode", "discuss"]);
    expect(stopped.status).toBe(1);
    expect(stopped.stderr).toContain("approval_required");
    expect(stopped.stderr).toContain("would change 1 row");
    expect((await nbook(["sql", "SELECT count(*) AS n FROM story_act"])).stdout).toContain("\n0\n");
    const approved = await nbook(["sql", insert, "--mode", "discuss", "--approve", "--json"]);
    expect(JSON.parse(approved.stdout)).toMatchObject({ ok: true, details: { changes: 1 } });
    expect((await nbook(["sql", "SELECT count(*) AS n FROM story_act"])).stdout).toContain("\n1\n");
  });

  it("refuses what execute_sql refuses, and stops a runaway query", async () => {
    const r = await nbook(["sql", "DROP TABLE story", "--json"]);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout).error.code).toBe("not_allowed");
    const slow = await nbook([
      "sql",
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000000000) SELECT count(*) FROM c",
      "--json",
    ]);
    expect(JSON.parse(slow.stdout).error.code).toBe("timeout");
  });

  it("without a statement, shows one and points to --describe", async () => {
    const nothing = await nbook(["sql"]);
    expect(nothing.status).toBe(2);
    expect(nothing.stderr).toContain('nbook sql "SELECT');
    expect(nothing.stderr).toContain("--describe");
  });

  it("describes the schema and needs a project", async () => {
    const d = await nbook(["sql", "--describe"]);
    expect(d.status).toBe(0);
    expect(d.stdout).toContain("## story_scene");
    const both = await nbook(["sql", "DELETE FROM story_act", "--describe"]);
    expect(both.status).toBe(2);
    expect(both.stderr).toContain("not both");
    const none = await nbook(["sql", "SELECT 1"], ws);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain("No project");
  });
});
