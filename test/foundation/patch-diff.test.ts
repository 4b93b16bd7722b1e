import { applyPatch } from "diff";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { editsToUnifiedDiff, type LineEdit } from "../../src/tools/files/patch/diff.js";

describe("editsToUnifiedDiff", () => {
  it("property: the diff built from edits turns the old text into the new one", () => {
    const edit = fc.record({
      at: fc.nat(40),
      remove: fc.nat(3),
      insert: fc.array(fc.constantFrom<string>("x", "y"), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom<string>("a", "b", "c", "d"), { maxLength: 40 }),
        fc.array(edit, { maxLength: 5 }),
        (lines, raw) => {
          const edits: LineEdit[] = [];
          let pos = 0;
          for (const e of [...raw].sort((a, b) => a.at - b.at)) {
            const at = Math.max(e.at, pos);
            if (at > lines.length) break;
            const remove = Math.min(e.remove, lines.length - at);
            edits.push({ at, remove, insert: e.insert });
            pos = at + remove + (remove === 0 ? 1 : 0);
          }
          const out = [...lines];
          for (const e of [...edits].reverse()) out.splice(e.at, e.remove, ...e.insert);
          const text = (ls: string[]) => (ls.length ? `${ls.join("\n")}\n` : "");
          const d = editsToUnifiedDiff(lines, edits, "a/f", "b/f");
          if (d === "") expect(text(out)).toBe(text(lines));
          else expect(applyPatch(text(lines), d)).toBe(text(out));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
