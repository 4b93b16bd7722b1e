import { Parser } from "htmlparser2";
import { NbError } from "../../core/errors.js";

/**
 * How deep a page's elements may nest. Extraction time grows much faster than the depth (a page
 * of 1,000 nested `<div>`s takes tens of seconds, 100,000 overflow the stack); real pages stay far
 * below this, and browsers stop nesting at 512.
 */
export const MAX_DEPTH = 256;
/** How many elements a page may have: several times a long article with its site around it. */
export const MAX_ELEMENTS = 100_000;

/** Thrown from the parser's callbacks to stop it at the first element past a limit. */
class Exceeded extends Error {
  constructor(readonly limit: "depth" | "elements") {
    super(limit);
  }
}

/**
 * Refuse (`limit_exceeded`) a page whose element tree would be too deep or too large to extract.
 * The tree is measured with the tokenizer and tree rules of the parser that builds the DOM
 * (linkedom's htmlparser2, with its options), so implied closings, void and self-closing elements
 * count exactly as they will. Only the parser's events are kept, and it stops at the first element
 * past a limit: one linear pass, however the page is built.
 */
export function assertExtractable(html: string, pageUrl: string): void {
  let depth = 0;
  let elements = 0;
  const parser = new Parser(
    {
      onopentag() {
        depth++;
        elements++;
        if (depth > MAX_DEPTH) throw new Exceeded("depth");
        if (elements > MAX_ELEMENTS) throw new Exceeded("elements");
      },
      onclosetag() {
        depth--;
      },
    },
    { lowerCaseAttributeNames: false, decodeEntities: true, xmlMode: false },
  );
  try {
    parser.end(html);
  } catch (e) {
    if (!(e instanceof Exceeded)) throw e;
    const what =
      e.limit === "depth"
        ? `its elements nest more than ${MAX_DEPTH} deep`
        : `it has more than ${MAX_ELEMENTS.toLocaleString("en-US")} elements`;
    throw new NbError(
      "limit_exceeded",
      `web_fetch cannot read ${pageUrl}: ${what}, too complex to extract its text`,
      { details: { limit: e.limit, max: e.limit === "depth" ? MAX_DEPTH : MAX_ELEMENTS } },
    );
  }
}
