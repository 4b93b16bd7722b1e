/** A keyword query split for the trigram index: FTS5 expression terms, and terms too short for it. */
export interface KeywordQuery {
  /** The terms of 3+ characters, each an FTS5 phrase (quoted) for the trigram index, to be OR'd. */
  phrases: string[];
  /** Terms of 1–2 characters, which trigrams cannot match, and the bigrams of CJK runs: searched as substrings. */
  short: string[];
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

function quote(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

/**
 * Split a free-text query into terms (whitespace and punctuation separate them). A CJK run, written
 * without spaces, becomes its overlapping trigrams, so a sentence finds lines sharing part of it and
 * ranks those sharing more first, and its bigrams, since a Chinese word is often two characters
 * ("黛玉葬花" shares no trigram with "黛玉在花园里葬花"); other terms are matched as whole substrings.
 */
export function keywordQuery(query: string): KeywordQuery {
  const terms = query
    .split(/[\s\p{P}\p{S}]+/u)
    .map((t) => t.trim())
    .filter((t) => t !== "");
  const fts = new Set<string>();
  const short = new Set<string>();
  for (const term of terms) {
    const chars = [...term];
    if (chars.length < 3) short.add(term);
    else if (CJK.test(term)) {
      for (let i = 0; i + 3 <= chars.length; i++) fts.add(chars.slice(i, i + 3).join(""));
      for (let i = 0; i + 2 <= chars.length; i++) short.add(chars.slice(i, i + 2).join(""));
    } else fts.add(term);
  }
  return { phrases: [...fts].map(quote), short: [...short] };
}
