import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plotRowChanges, revertPlotChange } from "../../src/plot/change-log.js";
import { plotDb } from "../../src/plot/db.js";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { makeTestBed, type TestBed } from "../helpers.js";
import { recordedCall } from "./recorded.js";

let bed: TestBed;
beforeAll(() => {
  bed = makeTestBed("novel");
  plotDb(
    bed.project,
  ).exec(`INSERT INTO story_act (id, sort_order, name, title) VALUES (1, 0, 'a', 'One'), (2, 1, 'b', 'Two');
    INSERT INTO story_chapter (id, act_id, sort_order, name, title) VALUES (1, 1, 0, 'c', 'C');`);
});
afterAll(() => bed.cleanup());

const sql = (s: string) =>
  recordedCall(
    {
      registry: createToolRegistry(),
      workspace: bed.ws,
      project: bed.project,
      mode: "normal",
      profileKey: null,
      allow: "all",
    },
    "execute_sql",
    { sql: s },
  );
const acts = () => plotDb(bed.project).prepare("SELECT id, title FROM story_act ORDER BY id").all();

describe("execute_sql writes in the plot row log", () => {
  it("logs the rows a statement touches, cascades included, and a revert restores them", async () => {
    const before = plotDb(bed.project).prepare("SELECT * FROM story_chapter").all();
    const { id } = await sql("DELETE FROM story_act WHERE id = 1");
    const diff = plotRowChanges(plotDb(bed.project), id);
    // ON DELETE SET NULL took the chapter out of its act: the log has that row too.
    expect(diff.map((d) => `${d.op} ${d.name}`).sort()).toEqual(["delete act 1", "update chapter 1"]);
    expect(diff.find((d) => d.table === "story_chapter")?.fields).toEqual([
      { field: "act_id", before: 1, after: null },
    ]);
    revertPlotChange(plotDb(bed.project), id, "r-sql-1");
    expect(acts()).toEqual([
      { id: 1, title: "One" },
      { id: 2, title: "Two" },
    ]);
    expect(plotDb(bed.project).prepare("SELECT * FROM story_chapter").all()).toEqual(before);
  });

  it("may read the log but not write it", async () => {
    const { id } = await sql("UPDATE story_act SET title = 'Zwei' WHERE id = 2");
    const read = await bed.call("execute_sql", {
      sql: "SELECT tbl, pk FROM history_row WHERE change_id = ?",
      params: [id],
    });
    expect(read.ok && read.details).toMatchObject({ rows: [{ tbl: "story_act", pk: "[2]" }] });
    for (const s of [
      "DELETE FROM history_row",
      "UPDATE history_row SET after = NULL",
      "INSERT INTO history_row (change_id, tbl, pk) VALUES ('x', 'story_act', '[1]')",
    ]) {
      const r = await bed.call("execute_sql", { sql: s });
      expect(r.ok ? "ran" : r.error.code, s).toBe("not_allowed");
    }
    expect(plotRowChanges(plotDb(bed.project), id)).toHaveLength(1);
  });

  it("an approved write in a read-only mode is logged too", async () => {
    const preview = await bed.call(
      "execute_sql",
      { sql: "UPDATE story_act SET title = 'Deux' WHERE id = 2" },
      { mode: "plan" },
    );
    expect(preview.ok ? "ran" : preview.error.code).toBe("approval_required");
    const basis = !preview.ok && (preview.error.details as { preview: { basis: unknown } }).preview.basis;
    const ids: string[] = [];
    const { dispatch } = await import("../../src/tools/dispatch.js");
    const r = await dispatch(
      { key: "execute_sql", input: { sql: "UPDATE story_act SET title = 'Deux' WHERE id = 2" } },
      {
        registry: createToolRegistry(),
        workspace: bed.ws,
        project: bed.project,
        mode: "plan",
        profileKey: null,
        allow: "all",
        approved: true,
        approvedBasis: basis,
        onChange: (c) => ids.push(c.id),
      },
    );
    expect(r.ok).toBe(true);
    expect(plotRowChanges(plotDb(bed.project), ids[0]).map((d) => d.fields.map((x) => x.after))).toEqual([
      ["Deux"],
    ]);
  });
});
