/**
 * Key matching for canon activation. Chinese and Japanese have no spaces between words, so a key
 * written in those scripts matches anywhere; a Latin key matches only as a whole word ("Ann" is not
 * found in "Annual"). The rule is per edge: a key's end needs a word boundary only when its edge
 * character is a letter or digit outside the CJK scripts. Matching ignores case.
 */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const WORD = /[\p{L}\p{N}_]/u;

function needsBoundary(ch: string): boolean {
  return ch !== "" && WORD.test(ch) && !CJK.test(ch);
}

/** A key prepared for matching: lower-cased, with which of its edges need a word boundary. */
export interface PreparedKey {
  key: string;
  lower: string;
  left: boolean;
  right: boolean;
}

export function prepareKey(key: string): PreparedKey {
  const lower = key.toLowerCase();
  const chars = [...lower];
  return { key, lower, left: needsBoundary(chars[0]), right: needsBoundary(chars[chars.length - 1]) };
}

/** The character ending just before offset `i` (a surrogate pair read whole). */
function charBefore(text: string, i: number): string {
  if (i <= 0) return "";
  const low = text.charCodeAt(i - 1);
  return low >= 0xdc00 && low <= 0xdfff && i > 1 ? text.slice(i - 2, i) : text[i - 1];
}

/** The character starting at offset `i`. */
function charAt(text: string, i: number): string {
  if (i >= text.length) return "";
  return String.fromCodePoint(text.codePointAt(i) as number);
}

/** The first offset of `k` in `lower` (an already lower-cased text) that respects its boundaries; -1 when none. */
export function findKey(lower: string, k: PreparedKey): number {
  let from = 0;
  for (;;) {
    const at = lower.indexOf(k.lower, from);
    if (at < 0) return -1;
    const end = at + k.lower.length;
    const leftOk = !k.left || !needsBoundary(charBefore(lower, at));
    const rightOk = !k.right || !needsBoundary(charAt(lower, end));
    if (leftOk && rightOk) return at;
    from = at + 1;
  }
}
