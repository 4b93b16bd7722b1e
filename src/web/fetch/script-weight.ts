/**
 * Readability's length thresholds, adjusted for the script a page is written in. Its defaults
 * (a paragraph of 140 characters counts, an article needs 500) are tuned for Latin text, where a
 * word is five letters and a space; a Chinese or Japanese word is one or two characters, so the
 * same amount of text is a third as many characters and whole articles of 60–139-character
 * paragraphs read as "not an article".
 */

/** Latin letters one CJK character stands for when judging how much text there is. */
const CJK_WEIGHT = 3;

/** Readability's defaults (isProbablyReaderable's minContentLength and minScore, parse's charThreshold). */
const LATIN = { minContentLength: 140, minScore: 20, charThreshold: 500 };

/** Characters of candidate text sampled for the share: enough to tell the script, cheap on a huge page. */
const SAMPLE_CHARS = 20_000;

/** Han (with its extensions and compatibility forms), kana and Hangul. */
function isCjk(code: number): boolean {
  return (
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x20000 && code <= 0x3134f) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0x3040 && code <= 0x30ff) ||
    (code >= 0x31f0 && code <= 0x31ff) ||
    (code >= 0xac00 && code <= 0xd7af) ||
    (code >= 0x1100 && code <= 0x11ff) ||
    (code >= 0x3130 && code <= 0x318f)
  );
}

const LETTER = /\p{L}/u;

/** The share of CJK characters among the letters of `text` (0 when it has none). */
export function cjkShare(text: string): number {
  let cjk = 0;
  let letters = 0;
  let seen = 0;
  for (const ch of text) {
    if (++seen > SAMPLE_CHARS) break;
    const code = ch.codePointAt(0) as number;
    if (isCjk(code)) {
      cjk++;
      letters++;
    } else if (code < 0x80 ? /[A-Za-z]/.test(ch) : LETTER.test(ch)) letters++;
  }
  return letters ? cjk / letters : 0;
}

export interface ReaderThresholds {
  minContentLength: number;
  minScore: number;
  charThreshold: number;
}

/**
 * Thresholds for text whose letters are `share` CJK: as if each CJK character counted as
 * CJK_WEIGHT letters. A paragraph's score is √(length − minimum), so with lengths scaled by f the
 * same test reads √(f)·√(length − minimum/f) ≥ minScore: minimum and score divide by f and √f.
 */
export function readerThresholds(share: number): ReaderThresholds {
  const f = 1 + (CJK_WEIGHT - 1) * Math.min(1, Math.max(0, share));
  return {
    minContentLength: Math.round(LATIN.minContentLength / f),
    minScore: LATIN.minScore / Math.sqrt(f),
    charThreshold: Math.round(LATIN.charThreshold / f),
  };
}
