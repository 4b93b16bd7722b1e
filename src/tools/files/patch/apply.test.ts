import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyChunks } from "./apply.js";
import type { Chunk } from "./parse.js";

// The matching rules written as the plain scan they stand for: every start position from the
// cursor, exact first, then ignoring trailing whitespace, then surrounding whitespace.
const LEVELS: Array<(a: string, b: string) => boolean> = [
  (a, b) => a === b,
  (a, b) => a.trimEnd() === b.trimEnd(),
  (a, b) => a.trim() === b.trim(),
];

function scan(
  lines: string[],
  pattern: string[],
  from: number,
  opts: { eof: boolean; first: boolean },
  what: string,
): number {
  const at = (i: number, eq: (a: string, b: string) => boolean) =>
    i >= 0 && i + pattern.length <= lines.length && pattern.every((p, k) => eq(lines[i + k], p));
  for (const eq of LEVELS) {
    if (opts.eof && at(lines.length - pattern.length, eq)) return lines.length - pattern.length;
    let found = -1;
    for (let i = from; i + pattern.length <= lines.length; i++) {
      if (!at(i, eq)) continue;
      if (opts.first) return i;
      if (found !== -1)
        throw new Error(`${what} is ambiguous: it matches at lines ${found + 1} and ${i + 1}`);
      found = i;
    }
    if (found !== -1) return found;
  }
  return -1;
}

/** What applyChunks must do, by the plain scan: the new text, or the start of the error message. */
function reference(text: string, chunks: Chunk[]): string {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const edits: Array<{ at: number; remove: number; insert: string[] }> = [];
  let cursor = 0;
  for (const [ci, c] of chunks.entries()) {
    const what = `Chunk ${ci + 1} of f.md`;
    for (const [k, anchor] of c.anchors.entries()) {
      const at = scan(lines, [anchor], cursor, { eof: false, first: k > 0 }, `Anchor "@@ ${anchor}" in f.md`);
      if (at === -1) throw new Error(`${what}: anchor line "${anchor}" not found`);
      cursor = at + 1;
    }
    const after = { eof: c.eof, first: c.anchors.length > 0 };
    if (c.oldLines.length === 0) {
      edits.push({ at: lines.length, remove: 0, insert: c.newLines });
      continue;
    }
    let old = c.oldLines;
    let insert = c.newLines;
    let at = scan(lines, old, cursor, after, what);
    if (at === -1 && old[old.length - 1] === "") {
      old = old.slice(0, -1);
      if (insert[insert.length - 1] === "") insert = insert.slice(0, -1);
      at = scan(lines, old, cursor, after, what);
    }
    if (at === -1)
      throw new Error(`${what}: context not found (expected lines starting with "${old[0].slice(0, 80)}")`);
    edits.push({ at, remove: old.length, insert });
    cursor = at + old.length;
  }
  for (const e of [...edits].sort((a, b) => b.at - a.at)) lines.splice(e.at, e.remove, ...e.insert);
  return lines.length ? `${lines.join("\n")}\n` : "";
}

function outcome(fn: () => string): string {
  try {
    return `ok ${fn()}`;
  } catch (e) {
    // The messages agree up to the hint that follows the line numbers.
    return `error ${(e as Error).message.replace(/; add more context.*$/, "")}`;
  }
}

// Few distinct lines, with whitespace variants, so repeats, ambiguity and the looser levels all occur.
const line = fc.constantFrom("a", "b", "c", "a ", " a", "b\t", "", "  ");
const chunk: fc.Arbitrary<Chunk> = fc.record({
  anchors: fc.array(line, { maxLength: 2 }),
  oldLines: fc.array(line, { maxLength: 4 }),
  newLines: fc.array(fc.constantFrom("x", "y", ""), { maxLength: 3 }),
  eof: fc.boolean(),
});

describe("applyChunks", () => {
  it("property: the indexed search and the spliced text equal a scan of every position and a line-by-line splice", () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 30 }),
        fc.array(chunk, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        (ls, cs, finalNewline) => {
          const text = ls.join("\n") + (finalNewline && ls.length ? "\n" : "");
          expect(outcome(() => applyChunks(text, cs, "f.md").text)).toBe(outcome(() => reference(text, cs)));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("uses the rarest line of the context to place a hunk among many repeated lines", () => {
    const lines: string[] = Array.from({ length: 5000 }, (_, i) => (i % 2 ? "" : "same"));
    lines[3000] = "unique";
    const text = `${lines.join("\n")}\n`;
    const r = applyChunks(
      text,
      [{ anchors: [], oldLines: ["same", "", "unique"], newLines: ["same", "", "changed"], eof: false }],
      "f.md",
    );
    expect(r.edits).toEqual([{ at: 2998, remove: 3, insert: ["same", "", "changed"] }]);
    expect(r.text.split("\n")[3000]).toBe("changed");
  });

  it("reports the first two places of an ambiguous context, under the loosest level that matches", () => {
    const text = "head\n  x\nmid\n x \ntail\n";
    expect(() =>
      applyChunks(text, [{ anchors: [], oldLines: ["x"], newLines: ["y"], eof: false }], "f.md"),
    ).toThrow("Chunk 1 of f.md is ambiguous: it matches at lines 2 and 4");
    const exact = applyChunks(
      text,
      [{ anchors: [], oldLines: [" x "], newLines: ["y"], eof: false }],
      "f.md",
    );
    expect(exact.text).toBe("head\n  x\nmid\ny\ntail\n");
  });
});
