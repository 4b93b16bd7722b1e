import { describe, expect, it } from "vitest";
import { NbError } from "../../core/errors.js";
import { checkStatementText, sqlWords } from "./statement-text.js";

function refusal(sql: string): NbError {
  try {
    checkStatementText(sql);
  } catch (e) {
    if (e instanceof NbError) return e;
    throw e;
  }
  throw new Error(`not refused: ${sql}`);
}

describe("sqlWords", () => {
  it("skips comments and unquotes strings and identifiers", () => {
    expect(sqlWords(`-- x; y\n/* z */ SELECT "a""b", [c d], \`e\`, 'it''s' FROM t`)).toEqual([
      { text: "SELECT", quoted: false },
      { text: 'a"b', quoted: true },
      { text: "c d", quoted: true },
      { text: "e", quoted: true },
      { text: "it's", quoted: true },
      { text: "FROM", quoted: false },
      { text: "t", quoted: false },
    ]);
  });
});

describe("checkStatementText", () => {
  it("returns the leading command, whatever the case and leading comments", () => {
    expect(checkStatementText("  /* a */ -- b\n select 1")).toBe("SELECT");
    expect(checkStatementText("With a AS (SELECT 1) DELETE FROM t")).toBe("WITH");
    expect(checkStatementText("explain query plan update t set a = 1")).toBe("EXPLAIN");
    expect(checkStatementText("values (1)")).toBe("VALUES");
  });

  it("refuses other leading keywords with not_allowed and a /sql field", () => {
    const e = refusal("PRAGMA user_version");
    expect(e.code).toBe("not_allowed");
    expect(e.fields?.[0].pointer).toBe("/sql");
    expect(refusal("'SELECT' 1").code).toBe("not_allowed");
    expect(refusal("-- only a comment").code).toBe("not_allowed");
  });

  it("refuses EXPLAIN of a refused statement and of EXPLAIN", () => {
    expect(refusal("EXPLAIN VACUUM").message).toContain("EXPLAIN");
    expect(refusal("EXPLAIN QUERY PLAN PRAGMA x").message).toContain("EXPLAIN");
    expect(refusal("EXPLAIN EXPLAIN SELECT 1").message).toContain("EXPLAIN");
  });

  it("refuses pragma_* table functions however they are quoted", () => {
    for (const s of [
      "SELECT * FROM pragma_index_list('t')",
      'SELECT * FROM "pragma_database_list"',
      "SELECT * FROM [Pragma_Table_Info]('t')",
      "SELECT * FROM 'pragma_database_list'",
    ]) {
      expect(refusal(s).message).toContain("PRAGMA");
    }
  });

  it("does not mistake words inside strings or longer identifiers for keywords", () => {
    expect(checkStatementText("SELECT 'drop table t; pragma x' AS copy, show, call FROM t")).toBe("SELECT");
    expect(checkStatementText("SELECT my_pragma_note FROM t")).toBe("SELECT");
  });
});
