// The prose editor's Markdown commands, on CodeMirror's state alone (no DOM),
// so they are tested under Node.
import { EditorSelection, type StateCommand } from "@codemirror/state";

/** Wrap each selection in `mark` (or take it off when it is already wrapped); an empty one gets a pair. */
export const toggleWrap =
  (mark: string): StateCommand =>
  ({ state, dispatch }) => {
    const n = mark.length;
    const change = state.changeByRange((r) => {
      const inside = state.sliceDoc(r.from, r.to);
      if (inside.length >= 2 * n && inside.startsWith(mark) && inside.endsWith(mark))
        return {
          changes: { from: r.from, to: r.to, insert: inside.slice(n, -n) },
          range: EditorSelection.range(r.from, r.to - 2 * n),
        };
      const around =
        r.from >= n && state.sliceDoc(r.from - n, r.from) === mark && state.sliceDoc(r.to, r.to + n) === mark;
      if (around && !r.empty)
        return {
          changes: [
            { from: r.from - n, to: r.from },
            { from: r.to, to: r.to + n },
          ],
          range: EditorSelection.range(r.from - n, r.to - n),
        };
      return {
        changes: [
          { from: r.from, insert: mark },
          { from: r.to, insert: mark },
        ],
        range: EditorSelection.range(r.from + n, r.to + n),
      };
    });
    dispatch(state.update(change, { scrollIntoView: true, userEvent: "input" }));
    return true;
  };

/** Make the selected lines headings of `level` (0: plain paragraphs); the same level again takes it off. */
export const setHeading =
  (level: number): StateCommand =>
  ({ state, dispatch }) => {
    const changes = [];
    const seen = new Set<number>();
    for (const r of state.selection.ranges)
      for (let at = r.from; at <= r.to; ) {
        const line = state.doc.lineAt(at);
        if (!seen.has(line.number)) {
          seen.add(line.number);
          const marks = /^#{1,6}[ \t]+/.exec(line.text)?.[0] ?? "";
          const had = marks.replace(/[ \t]+$/, "").length;
          const want = had === level ? "" : level > 0 ? `${"#".repeat(level)} ` : "";
          changes.push({ from: line.from, to: line.from + marks.length, insert: want });
        }
        at = line.to + 1;
      }
    dispatch(state.update({ changes }, { scrollIntoView: true, userEvent: "input" }));
    return true;
  };
