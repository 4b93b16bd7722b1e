import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { importBook } from "../../src/books/import/index.js";
import { History } from "../../src/history/history.js";
import { rowsOfChange } from "../../src/history/rows.js";
import { makeTestBed, type TestBed } from "../helpers.js";

let bed: TestBed;
beforeEach(() => {
  bed = makeTestBed("existing");
});
afterEach(() => bed.cleanup());

const file = (name: string, text: string) => {
  const p = join(bed.dir, name);
  writeFileSync(p, text);
  return p;
};

describe("an import in the history", () => {
  it("a new project's history holds the book as one change of actor import, its plot rows logged under it", async () => {
    const r = await importBook(
      bed.ws,
      { path: file("b.md", "Front.\n\n# One\n\nA.\n\n# Two\n\nB.\n") },
      { project: "book" },
    );
    expect(r.plan.warnings.map((w) => w.code)).not.toContain("history_not_recorded");
    const project = bed.ws.project("book");
    const changes = History.of(project).index.list({});
    const imports = changes.filter((c) => c.actor === "import");
    expect(imports).toHaveLength(1);
    expect(imports[0]).toMatchObject({ tool: "import", summary: "Import b.md: 2 chapter(s), 5 words" });
    expect(imports[0].targets).toEqual(
      expect.arrayContaining([
        "manuscript/01-one/index.md",
        "manuscript/02-two/index.md",
        "manuscript/front-matter.md",
      ]),
    );
    expect(rowsOfChange(project, imports[0].id).plot.length).toBeGreaterThan(0);
    // Before it, only the history's start (the empty layout).
    expect(changes.filter((c) => c.actor !== "import").map((c) => c.tool)).toEqual(["history"]);
  });

  it("--into records the appended chapters as one import change, after the project's own state", async () => {
    writeFileSync(join(bed.project.root, "notes.md"), "mine\n");
    await importBook(bed.ws, { path: file("b.md", "# One\n\nA.\n\n# Two\n\nB.\n") }, { into: "existing" });
    const changes = History.of(bed.project).index.list({});
    const imports = changes.filter((c) => c.actor === "import");
    expect(imports).toHaveLength(1);
    expect([...(imports[0].targets ?? [])].sort()).toEqual([
      "manuscript/01-one/index.md",
      "manuscript/02-two/index.md",
      "manuscript/index.md",
    ]);
    expect(rowsOfChange(bed.project, imports[0].id).plot.length).toBeGreaterThan(0);
  });
});
