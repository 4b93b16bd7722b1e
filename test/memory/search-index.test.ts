import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eventChunks } from "../../src/memory/chunks.js";
import { SubjectIndex } from "../../src/memory/search-index.js";
import { syncText } from "../../src/memory/subjects.js";

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

describe("ranking many matches", () => {
  // More matches than are ranked (2,000): the oldest event is the only one with a lantern.
  const many = () =>
    events(
      "Mira found the bell and a lantern by the mill.",
      ...Array.from({ length: 2600 }, (_, i) => `The bell rang ${i} times at the mill.`),
    );

  it("ranks every match of a rarer term, however old, by the whole query's bm25", () => {
    index.sync("mira", "events", many());
    expect(index.search("mira", "events", "bell lantern", 3)[0]).toMatchObject({ ord: 0 });
    expect(index.search("mira", "events", "lantern", 3).map((h) => h.ord)).toEqual([0]);
  });

  it("ranks only the newest matches of terms that match thousands of events", () => {
    index.sync("mira", "events", many());
    const hits = index.search("mira", "events", "bell mill", 10);
    expect(hits).toHaveLength(10);
    expect(Math.min(...hits.map((h) => h.ord))).toBeGreaterThan(2600 - 2000);
  });

  it("counts only the subject's own matches: another subject's many do not make a term common", () => {
    index.sync("lin", "events", many());
    index.sync("mira", "events", events("An old bell.", "The bell again.", "A third bell."));
    expect(
      index
        .search("mira", "events", "bell", 10)
        .map((h) => h.text)
        .sort(),
    ).toEqual(["A third bell.", "An old bell.", "The bell again."]);
  });
});

describe("syncing a source from its file text", () => {
  const mira = { id: "mira", path: "simulation/subjects/mira" };
  const lines = (...texts: string[]) => texts.map((text) => `${JSON.stringify({ text })}\n`).join("");

  it("indexes only the lines appended at the end, numbering errors by their line in the file", () => {
    const before = lines("one bell", "two bells", "three bells");
    expect(syncText(index, mira, "events", before)).toEqual({ added: 3, removed: 0 });
    expect(syncText(index, mira, "events", before)).toEqual({ added: 0, removed: 0 });
    const after = before + lines("four bells", "one bell");
    expect(syncText(index, mira, "events", after)).toEqual({ added: 1, removed: 0 });
    const hits = index.search("mira", "events", "bell", 10).sort((x, y) => x.ord - y.ord);
    expect(hits.map((h) => [h.ord, h.text])).toEqual([
      [1, "two bells"],
      [2, "three bells"],
      [3, "four bells"],
      [4, "one bell"],
    ]);
    expect(() => syncText(index, mira, "events", `${after}\n{"text":"five"}\n{broken\n`)).toThrow(
      "simulation/subjects/mira/events.jsonl:8: invalid JSON",
    );
  });

  it("re-reads the whole file when the old text is no longer its start", () => {
    syncText(index, mira, "events", lines("a lantern", "a bell"));
    const edited = lines("a lantern", "a raven", "a gate");
    expect(syncText(index, mira, "events", edited)).toEqual({ added: 2, removed: 1 });
    expect(index.search("mira", "events", "bell", 10)).toEqual([]);
    // The last line had no newline: an append after it is not a pure append.
    const noNewline = '{"text":"a lantern"}';
    syncText(index, mira, "events", noNewline);
    expect(syncText(index, mira, "events", `${noNewline}\n{"text":"a bell"}\n`)).toEqual({
      added: 1,
      removed: 0,
    });
  });
});
