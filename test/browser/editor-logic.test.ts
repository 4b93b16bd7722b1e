// The prose editor's own logic, run under Node on CodeMirror's state alone: the chapter title is
// the first heading (not front matter, not a `#` inside a line), Ctrl+B/I wrap and unwrap, and the
// heading command sets, changes and takes off a line's level.
import { EditorSelection, EditorState, type StateCommand } from "@codemirror/state";
import { describe, expect, it } from "vitest";
import { setHeading, toggleWrap } from "../../web/src/screens/prose-commands.js";

/** Run a command on `doc` with the selection [from, to); the text and selection after it. */
function run(command: StateCommand, doc: string, from: number, to = from) {
  let state = EditorState.create({ doc, selection: EditorSelection.single(from, to) });
  command({ state, dispatch: (tr) => (state = tr.state) });
  const r = state.selection.main;
  return { text: state.doc.toString(), selected: state.sliceDoc(r.from, r.to) };
}

describe("toggleWrap", () => {
  it("wraps a selection, takes the marks off again, and puts a pair at an empty cursor", () => {
    expect(run(toggleWrap("**"), "the bell rang", 4, 8)).toEqual({
      text: "the **bell** rang",
      selected: "bell",
    });
    expect(run(toggleWrap("**"), "the **bell** rang", 6, 10)).toEqual({
      text: "the bell rang",
      selected: "bell",
    });
    expect(run(toggleWrap("*"), "the *bell* rang", 4, 10)).toEqual({
      text: "the bell rang",
      selected: "bell",
    });
    expect(run(toggleWrap("*"), "ab", 1)).toEqual({ text: "a**b", selected: "" });
  });
});

describe("setHeading", () => {
  it("sets a line's level, changes it, and the same level again takes it off", () => {
    expect(run(setHeading(2), "one\ntwo", 5).text).toBe("one\n## two");
    expect(run(setHeading(1), "one\n## two", 5).text).toBe("one\n# two");
    expect(run(setHeading(1), "# one", 2).text).toBe("one");
    expect(run(setHeading(0), "### one\ntwo", 0, 9).text).toBe("one\ntwo");
  });
});
