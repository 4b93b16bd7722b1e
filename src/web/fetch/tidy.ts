/** A page as text for the model. */
export interface Extracted {
  title?: string;
  description?: string;
  content: string;
  /** `markdown` for HTML pages, `text` for everything else. */
  format: "markdown" | "text";
  /** `readability` found an article; `fallback` took the main/article/body text. */
  method: "readability" | "fallback" | "text";
}

/** Leading U+00A0 / U+3000 left at the start of a line. */
const LINE_INDENT = /^[\u00a0\u3000]+/gm;

/**
 * A line without its trailing spaces and tabs (before a final CR, which stays), found by a scan
 * from the end: the expression `[ \t]+$` retries from every space of a long run, quadratic in it.
 */
function trimTrailingBlanks(line: string): string {
  const cr = line.endsWith("\r") ? 1 : 0;
  let end = line.length - cr;
  while (end > 0) {
    const c = line.charCodeAt(end - 1);
    if (c !== 0x20 && c !== 0x09) break;
    end--;
  }
  return end === line.length - cr ? line : line.slice(0, end) + line.slice(line.length - cr);
}

/** Indents and trailing blanks gone, runs of blank lines made one, the whole trimmed. */
export function tidy(text: string): string {
  return text
    .replace(LINE_INDENT, "")
    .split("\n")
    .map(trimTrailingBlanks)
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** Plain text, XML or JSON, as it is (trimmed, indents and blank runs tidied). */
export function extractText(text: string): Extracted {
  return { content: tidy(text), format: "text", method: "text" };
}
