import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eventChunks } from "../../src/memory/chunks.js";
import { SubjectIndex } from "../../src/memory/search-index.js";

let dir: string;
let index: SubjectIndex;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "nbook-memidx-"));
  index = SubjectIndex.open(join(dir, "subject-memory.sqlite"));
});
afterEach(() => {
  index.close();
  rmSync(dir, { recursive: true, force: true });
});

const events = (...texts: string[]) => eventChunks(texts.map((text) => ({ text })));

describe("the subject index", () => {
  it("re-indexes only the chunks whose content changed", () => {
    expect(index.sync("mira", "events", events("one bell", "two bells", "three bells"))).toEqual({
      added: 3,
      removed: 0,
    });
    expect(index.sync("mira", "events", events("one bell", "two bells", "three bells"))).toEqual({
      added: 0,
      removed: 0,
    });
    expect(index.sync("mira", "events", events("one bell", "2 bells", "three bells", "four bells"))).toEqual({
      added: 2,
      removed: 1,
    });
    expect(
      index
        .search("mira", "events", "bells", 10)
        .map((h) => h.text)
        .sort(),
    ).toEqual(["2 bells", "four bells", "three bells"]);
  });

  it("keeps subjects and sources apart", () => {
    index.sync("mira", "events", events("the silver lantern"));
    index.sync("lin", "events", events("the silver lantern", "the silver lantern again"));
    expect(index.sync("mira", "memory", [])).toEqual({ added: 0, removed: 0 });
    expect(index.search("mira", "events", "lantern", 10)).toEqual([{ ord: 0, text: "the silver lantern" }]);
    expect(index.search("lin", "events", "lantern", 1)).toHaveLength(1);
    expect(index.search("mira", "memory", "lantern", 10)).toEqual([]);
  });
});
