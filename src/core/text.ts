/** The line ending a text predominantly uses (`\r\n` wins when it is the first ending found). */
export function detectLineEnding(text: string): "\n" | "\r\n" {
  const i = text.indexOf("\n");
  return i > 0 && text[i - 1] === "\r" ? "\r\n" : "\n";
}

/** Normalise all line endings to `\n`. */
export function toLf(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/** Convert `\n` line endings to `eol`. */
export function fromLf(text: string, eol: "\n" | "\r\n"): string {
  return eol === "\n" ? text : text.replace(/\n/g, "\r\n");
}

/** Rewrite `next` with the line endings `previous` used, so CRLF files stay CRLF. */
export function keepLineEndings(previous: string | null, next: string): string {
  if (previous === null) return next;
  return fromLf(toLf(next), detectLineEnding(previous));
}

/** Heuristic binary check: a NUL byte in the first 8 KiB. */
export function looksBinary(buf: Uint8Array): boolean {
  const n = Math.min(buf.length, 8192);
  for (let i = 0; i < n; i++) if (buf[i] === 0) return true;
  return false;
}

/** A CRLF line ending, or one of the C0 controls but tab and newline, DEL, and the C1 controls. */
const CONTROL = /\r\n|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text for a terminal with its control characters shown as `\xNN` (a lone CR too; tab and newline
 * stay, and a CRLF line ending is a newline): an escape sequence or a carriage return in a model's,
 * a tool's or a page's text can then neither move the cursor, erase what was printed nor draw over
 * it. One ASCII form for C0, DEL and C1 alike, readable in every font, rather than caret notation
 * (none for C1) or control pictures (C0 only, missing from many fonts).
 */
export function visibleControls(text: string): string {
  return text.replace(CONTROL, (c) =>
    c === "\r\n" ? "\n" : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
}

/**
 * Words in a text as a writer counts them: each CJK character is a word, and so is each run of
 * letters or digits (apostrophes and hyphens inside a word keep it whole).
 */
export function countWords(text: string): number {
  const cjk = text.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu);
  const rest = text.replace(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu, " ");
  const words = rest.match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu);
  return (cjk?.length ?? 0) + (words?.length ?? 0);
}
