import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Mode } from "../../src/core/modes.js";
import { plotDb } from "../../src/plot/db.js";
import type { DispatchResult, ToolPreview } from "../../src/tools/types.js";
import { makeTestBed, type TestBed } from "../helpers.js";

let bed: TestBed;

beforeAll(() => {
  bed = makeTestBed("novel");
  const db = plotDb(bed.project);
  const insert = db.prepare("INSERT INTO story_act (sort_order, name, title) VALUES (?, ?, ?)");
  for (let i = 1; i <= 5; i++) insert.run(i, `act-${i}`, `Act ${i}`);
  db.prepare("INSERT INTO story_thread (sort_order, name, title) VALUES (1, 'tide', 'Tide')").run();
  db.prepare("INSERT INTO story_scene (thread_id, thread_sort_order, title) VALUES (1, 1, 'Flood')").run();
  db.prepare("INSERT INTO story_scene_subject VALUES (1, 1, 'mira')").run();
});
afterAll(() => bed.cleanup());

/** One execute_sql call in `mode`; `approved` settles it against a preview's basis. */
function sql(statement: string, mode: Mode, approved?: { basis: unknown }): Promise<DispatchResult> {
  return bed.call(
    "execute_sql",
    { sql: statement },
    {
      mode,
      ...(approved ? { approved: true, approvedBasis: approved.basis } : {}),
    },
  );
}

/** The preview a discuss-mode write is stopped with, through JSON as the store keeps it. */
async function previewOf(statement: string): Promise<ToolPreview & { details: { changes: number } }> {
  const r = await sql(statement, "discuss");
  if (r.ok || r.error.code !== "approval_required")
    throw new Error(`expected an approval: ${JSON.stringify(r)}`);
  return JSON.parse(JSON.stringify((r.error.details as { preview: ToolPreview }).preview));
}

const rows = (q: string) => plotDb(bed.project).prepare(q).all();

describe("an approved execute_sql write changes what its preview counted, or nothing", () => {
  it("a time-dependent UPDATE that previewed 0 rows is rolled back with conflict once it would change rows", async () => {
    await sql("SELECT 1", "normal"); // a warm SQL process, so the preview runs well before the deadline
    const at = new Date(Date.now() + 1000).toISOString();
    const update = `UPDATE story_act SET title = 'Gone' WHERE strftime('%Y-%m-%dT%H:%M:%fZ', 'now') >= '${at}'`;
    const preview = await previewOf(update);
    expect(preview.details.changes).toBe(0);
    expect(preview.text).toContain("would change 0 rows");
    while (new Date().toISOString() < at) await new Promise((r) => setTimeout(r, 25));

    const r = await sql(update, "discuss", { basis: preview.basis });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("conflict");
    expect(r.error.message).toContain("it would now change 5 rows where the approved preview counted 0 rows");
    expect(r.error.message).toContain("rolled back");
    expect(rows("SELECT title FROM story_act WHERE title = 'Gone'")).toEqual([]);
    // The fresh preview can be approved as it stands now.
    const fresh = (r.error.details as { preview: ToolPreview }).preview;
    expect(fresh.text).toContain("UPDATE would now change 5 rows");
    const again = await sql(update, "discuss", { basis: JSON.parse(JSON.stringify(fresh.basis)) });
    expect(again.ok).toBe(true);
    expect(rows("SELECT count(*) AS n FROM story_act WHERE title = 'Gone'")).toEqual([{ n: 5 }]);
  });

  it("the same row count on other rows is a conflict too", async () => {
    const db = plotDb(bed.project);
    db.prepare("UPDATE story_act SET status = 'archived' WHERE id = 1").run();
    const update = "UPDATE story_act SET note = 'flagged' WHERE status = 'archived'";
    const preview = await previewOf(update);
    expect(preview.details.changes).toBe(1);
    db.prepare("UPDATE story_act SET status = CASE id WHEN 2 THEN 'archived' ELSE 'active' END").run();

    const r = await sql(update, "discuss", { basis: preview.basis });
    expect(!r.ok && r.error.code).toBe("conflict");
    expect(!r.ok && r.error.message).toContain(
      "it would now change 1 row, but not the rows the approved preview counted",
    );
    expect(rows("SELECT id FROM story_act WHERE note IS NOT NULL")).toEqual([]);
  });

  it("rows a cascade touches count, down to a WITHOUT ROWID table", async () => {
    const del = "DELETE FROM story_scene WHERE title = 'Flood'";
    const preview = await previewOf(del);
    expect(preview.details.changes).toBe(1);
    plotDb(bed.project).prepare("INSERT INTO story_scene_subject VALUES (1, 2, 'tomas')").run();

    const r = await sql(del, "discuss", { basis: preview.basis });
    expect(!r.ok && r.error.code).toBe("conflict");
    expect(rows("SELECT subject_id FROM story_scene_subject ORDER BY subject_id")).toEqual([
      { subject_id: "mira" },
      { subject_id: "tomas" },
    ]);
  });

  it("an unchanged database commits the approved write, and the next writes run as usual", async () => {
    const update = "UPDATE story_act SET note = 'kept' WHERE id IN (3, 4) RETURNING id";
    const preview = await previewOf(update);
    const r = await sql(update, "discuss", { basis: preview.basis });
    expect(r.ok && r.text).toContain("2 rows changed.");
    expect(rows("SELECT id FROM story_act WHERE note = 'kept' ORDER BY id")).toEqual([{ id: 3 }, { id: 4 }]);
    const second = await previewOf("DELETE FROM story_act WHERE id = 5");
    expect((await sql("DELETE FROM story_act WHERE id = 5", "discuss", { basis: second.basis })).ok).toBe(
      true,
    );
    const plain = await sql("UPDATE story_act SET note = NULL", "normal");
    expect(plain.ok && plain.text).toContain("4 rows changed.");
  });

  it("a basis that is not a SQL basis is refused", async () => {
    const r = await sql("UPDATE story_act SET title = 'x'", "discuss", { basis: { files: [] } });
    expect(!r.ok && r.error.code).toBe("conflict");
    expect(rows("SELECT count(*) AS n FROM story_act WHERE title = 'x'")).toEqual([{ n: 0 }]);
  });
});
