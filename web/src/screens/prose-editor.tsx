// The prose editor: CodeMirror 6 over the file's Markdown, which stays Markdown (no document model
// to convert to and back). CodeMirror's contenteditable input layer handles IME composition, so
// Chinese typed through a pinyin input method arrives whole. Only the pieces used are bundled.
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { markdownKeymap, markdownLanguage } from "@codemirror/lang-markdown";
import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { EditorSelection, EditorState, Transaction } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";
import { tags } from "@lezer/highlight";
import type { RefObject } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { setHeading, toggleWrap } from "./prose-commands";

/** What the files screen (and inline AI) do to the open editor. */
export interface EditorHandle {
  /** Select line `line` (1-based) and scroll it into view. */
  selectLine: (line: number) => void;
  /** The main selection: its offsets in the text and the text it covers. */
  selection: () => { from: number; to: number; text: string };
  /** Replace a range of the text, as one undoable edit. */
  replace: (from: number, to: number, text: string) => void;
  /**
   * Show text from outside (a reload after another change, a conflict resolved): the part that
   * differs is replaced, and undo does not take it back (it is not the author's typing).
   */
  setText: (text: string) => void;
}

interface Props {
  /** The text it opens with; after that the editor holds the text (see EditorHandle.setText). */
  initial: string;
  onChange: (text: string) => void;
  onSave: () => void;
  /** The selection changed (its text is empty when nothing is selected). */
  onSelect?: (sel: { from: number; to: number; text: string }) => void;
  label: string;
  handle?: RefObject<EditorHandle | null>;
}

const proseHighlight = HighlightStyle.define([
  { tag: tags.heading1, fontSize: "1.45em", fontWeight: "700" },
  { tag: tags.heading2, fontSize: "1.25em", fontWeight: "700" },
  { tag: [tags.heading3, tags.heading4, tags.heading5, tags.heading6], fontWeight: "700" },
  { tag: tags.strong, fontWeight: "700" },
  { tag: tags.emphasis, fontStyle: "italic" },
  { tag: tags.strikethrough, textDecoration: "line-through" },
  { tag: tags.quote, color: "#4a5058" },
  { tag: [tags.processingInstruction, tags.meta, tags.monospace], color: "#5f6670" },
  { tag: [tags.link, tags.url], color: "#2d5b8a" },
]);

/** The smallest replacement turning `from` into `to` (keeps the cursor and scroll of a reload). */
function minimalChange(from: string, to: string) {
  let a = 0;
  const max = Math.min(from.length, to.length);
  while (a < max && from.charCodeAt(a) === to.charCodeAt(a)) a++;
  let b = 0;
  while (b < max - a && from.charCodeAt(from.length - 1 - b) === to.charCodeAt(to.length - 1 - b)) b++;
  return { from: a, to: from.length - b, insert: to.slice(a, to.length - b) };
}

/** A Markdown editor for prose: reading font, soft wrap, spell check, Markdown shortcuts, Ctrl+S. */
export function ProseEditor({ initial, onChange, onSave, onSelect, label, handle }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  // The callbacks change every render; the editor, made once, calls the latest through this.
  const props = useRef({ onChange, onSave, onSelect });
  props.current = { onChange, onSave, onSelect };

  useEffect(() => {
    const v = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: initial,
        extensions: [
          history(),
          EditorView.lineWrapping,
          markdownLanguage,
          syntaxHighlighting(proseHighlight),
          keymap.of([
            {
              key: "Mod-s",
              preventDefault: true,
              run: () => {
                props.current.onSave();
                return true;
              },
            },
            { key: "Mod-b", run: toggleWrap("**") },
            { key: "Mod-i", run: toggleWrap("*") },
            { key: "Mod-Alt-0", run: setHeading(0) },
            { key: "Mod-Alt-1", run: setHeading(1) },
            { key: "Mod-Alt-2", run: setHeading(2) },
            { key: "Mod-Alt-3", run: setHeading(3) },
            ...markdownKeymap,
            ...historyKeymap,
            ...defaultKeymap,
          ]),
          EditorView.contentAttributes.of({
            spellcheck: "true",
            autocorrect: "on",
            autocapitalize: "sentences",
            "aria-label": label,
            "aria-multiline": "true",
            role: "textbox",
            // Focusable by Tab as a textbox is (axe's scrollable-region rule does not count contenteditable).
            tabindex: "0",
            "data-testid": "editor",
          }),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) props.current.onChange(u.state.doc.toString());
            if (u.docChanged || u.selectionSet) {
              const r = u.state.selection.main;
              props.current.onSelect?.({ from: r.from, to: r.to, text: u.state.sliceDoc(r.from, r.to) });
            }
          }),
        ],
      }),
    });
    view.current = v;
    if (handle)
      handle.current = {
        selectLine: (line) => {
          const l = v.state.doc.line(Math.min(Math.max(line, 1), v.state.doc.lines));
          v.dispatch({
            selection: EditorSelection.range(l.from, l.to),
            effects: EditorView.scrollIntoView(l.from, { y: "center" }),
          });
          v.focus();
        },
        selection: () => {
          const r = v.state.selection.main;
          return { from: r.from, to: r.to, text: v.state.sliceDoc(r.from, r.to) };
        },
        replace: (from, to, text) =>
          v.dispatch({
            changes: { from, to, insert: text },
            selection: EditorSelection.range(from, from + text.length),
            userEvent: "input",
          }),
        setText: (text) => {
          const now = v.state.doc.toString();
          if (now !== text)
            v.dispatch({
              changes: minimalChange(now, text),
              annotations: Transaction.addToHistory.of(false),
            });
        },
      };
    return () => {
      if (handle) handle.current = null;
      v.destroy();
      view.current = null;
    };
  }, []);

  return <div class="source" ref={host} />;
}

/** Focus mode: while on, the page shows only the editor's column (CSS keys off the body's class); Escape leaves it. */
export function useWritingFocus(on: boolean, leave: () => void): void {
  useEffect(() => {
    if (!on) return;
    document.body.classList.add("writing-focus");
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") leave();
    };
    window.addEventListener("keydown", onKey);
    return () => {
      document.body.classList.remove("writing-focus");
      window.removeEventListener("keydown", onKey);
    };
  }, [on]);
}
