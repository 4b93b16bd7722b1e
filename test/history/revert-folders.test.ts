import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { importBook } from "../../src/books/import/index.js";
import { History } from "../../src/history/history.js";
import { revertChanges } from "../../src/history/revert.js";
import { makeTestBed, type TestBed } from "../helpers.js";

let bed: TestBed;
afterEach(() => bed?.cleanup());

describe("a revert's folders", () => {
  it("a revert of an import removes the chapter folders it emptied, and only those", async () => {
    bed = makeTestBed("existing");
    const root = bed.project.root;
    mkdirSync(join(root, "manuscript", "empty-before"), { recursive: true });
    const book = join(bed.dir, "b.md");
    writeFileSync(book, "# One\n\nA.\n\n# Two\n\nB.\n");
    await importBook(bed.ws, { path: book }, { into: "existing" });
    expect(readdirSync(join(root, "manuscript")).sort()).toEqual([
      "01-one",
      "02-two",
      "empty-before",
      "index.md",
    ]);
    // A file of the user's put in one of the imported folders afterwards.
    writeFileSync(join(root, "manuscript", "02-two", "notes.md"), "mine\n");
    const h = History.of(bed.project);
    const imported = h.index.list().find((c) => c.actor === "import");
    expect(imported).toBeDefined();
    await revertChanges(h, [imported as NonNullable<typeof imported>], {});
    expect(existsSync(join(root, "manuscript", "01-one"))).toBe(false);
    // A folder that still holds a file of the user's, and one that was empty before, stay.
    expect(existsSync(join(root, "manuscript", "02-two", "notes.md"))).toBe(true);
    expect(existsSync(join(root, "manuscript", "02-two", "index.md"))).toBe(false);
    expect(existsSync(join(root, "manuscript", "empty-before"))).toBe(true);
    expect(existsSync(join(root, "manuscript"))).toBe(true);
  });
});
