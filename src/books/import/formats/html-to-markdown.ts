import { parseHTML } from "linkedom";
import TurndownService from "turndown";
import type { DomElement } from "./xml.js";

/** Markdown of an HTML fragment, with its footnotes taken out as definitions by label. */
export interface ConvertedHtml {
  markdown: string;
  /** Footnote label → its text in Markdown; the text refers to each as `[^label]`. */
  footnotes: Map<string, string>;
}

// Footnotes as the two sources write them: mammoth (`<a href="#footnote-1">` in a `<sup>`, the notes
// in `<li id="footnote-1">`) and EPUB 3 (`<a epub:type="noteref">`, the notes in `<aside epub:type="footnote">`).
const NOTE_REF = 'a[href^="#footnote-"], a[href^="#endnote-"], a[epub\\:type~="noteref"]';
const NOTE_BODY =
  'li[id^="footnote-"], li[id^="endnote-"], aside[epub\\:type~="footnote"], aside[epub\\:type~="endnote"], aside[epub\\:type~="rearnote"]';

function turndown(): TurndownService {
  const td = new TurndownService({
    headingStyle: "atx",
    hr: "* * *",
    emDelimiter: "*",
    strongDelimiter: "**",
    bulletListMarker: "-",
    codeBlockStyle: "fenced",
  });
  td.addRule("footnote-ref", {
    filter: (node) => node.nodeName === "NB-FNREF",
    replacement: (_content, node) => `[^${(node as unknown as DomElement).getAttribute("label")}]`,
  });
  // Images are not imported (the manuscript is text); their alt text is.
  td.addRule("image", {
    filter: "img",
    replacement: (_c, node) => (node as unknown as DomElement).getAttribute("alt") ?? "",
  });
  td.remove(["script", "style", "head"]);
  return td;
}

/** The label a note's id gives (`footnote-3` → `3`, `fn3` → `fn3`). */
function labelOf(id: string): string {
  return id.replace(/^(?:foot|end)note-/, "").replace(/[^\p{L}\p{N}_-]/gu, "") || "note";
}

/** A back-link from a note to its reference (mammoth's `↑`, EPUB's `epub:type="backlink"`). */
function dropBacklinks(el: DomElement): void {
  for (const a of el.querySelectorAll(
    'a[href^="#footnote-ref-"], a[href^="#endnote-ref-"], a[epub\\:type~="backlink"]',
  ))
    a.remove();
}

/**
 * Convert HTML (a DOCX through mammoth, an EPUB chapter) to Markdown with turndown: italic `*x*`,
 * bold `**x**`, headings `#`, and footnote references `[^n]` whose notes are returned by label.
 */
export function htmlToMarkdown(html: string): ConvertedHtml {
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  const footnotes = new Map<string, string>();
  const td = turndown();
  for (const note of [...document.querySelectorAll(NOTE_BODY)]) {
    const id = note.getAttribute("id");
    if (!id) continue;
    dropBacklinks(note);
    footnotes.set(
      labelOf(id),
      td
        .turndown(note.innerHTML)
        .replace(/\s+$/, "")
        .replace(/\n{2,}/g, "\n    "),
    );
    const list = note.parentElement;
    note.remove();
    if (list && list.tagName === "OL" && !list.children.length) list.remove();
  }
  for (const ref of [...document.querySelectorAll(NOTE_REF)]) {
    const target = (ref.getAttribute("href") ?? "").replace(/^.*#/, "");
    const label = labelOf(target);
    if (!footnotes.has(label)) continue;
    const marker = document.createElement("nb-fnref");
    marker.setAttribute("label", label);
    // Turndown drops an element without text before any rule sees it.
    marker.textContent = label;
    // mammoth wraps the reference in <sup>; the Markdown reference replaces both.
    const sup =
      ref.parentElement?.tagName === "SUP" && ref.parentElement.childNodes.length === 1
        ? ref.parentElement
        : ref;
    sup.replaceWith(marker);
  }
  return { markdown: td.turndown(document.body.innerHTML), footnotes };
}
