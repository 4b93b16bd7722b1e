import { NbError } from "../core/errors.js";

/**
 * One term of a query: a "quoted phrase" or a word, and a word ending in `*` is a prefix. Terms are
 * all required. Text in Han, kana or Hangul matches anywhere (those scripts put no spaces between
 * words); any other term must start (prefix) or start and end (word, phrase) on a word boundary.
 */
export interface Term {
  text: string;
  prefix: boolean;
}

const MAX_TERMS = 16;
const MAX_QUERY = 500;

/** The terms of a query string; `invalid_input` for an empty one or an unclosed quote. */
export function parseQuery(query: string): Term[] {
  if (query.length > MAX_QUERY)
    throw new NbError("invalid_input", `The query is longer than ${MAX_QUERY} characters`, {
      fields: [{ pointer: "/query", message: `at most ${MAX_QUERY} characters` }],
    });
  const terms: Term[] = [];
  const re = /"([^"]*)("?)|(\S+)/g;
  for (let m = re.exec(query); m; m = re.exec(query)) {
    if (m[1] !== undefined) {
      if (m[2] !== '"')
        throw new NbError("invalid_input", "The query has an unclosed quote", {
          fields: [{ pointer: "/query", message: 'close the phrase with "' }],
        });
      const phrase = m[1].trim().replace(/\s+/g, " ");
      if (phrase) terms.push({ text: phrase, prefix: false });
      continue;
    }
    const word = m[3]!;
    const prefix = word.length > 1 && word.endsWith("*");
    const text = prefix ? word.slice(0, -1) : word;
    if (text && text !== "*") terms.push({ text, prefix });
  }
  if (!terms.length)
    throw new NbError("invalid_input", 'The query is empty: give a word, a prefix* or a "phrase"', {
      fields: [{ pointer: "/query", message: "must contain a word" }],
    });
  if (terms.length > MAX_TERMS)
    throw new NbError("invalid_input", `The query has more than ${MAX_TERMS} terms`, {
      fields: [{ pointer: "/query", message: `at most ${MAX_TERMS} terms` }],
    });
  return terms;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const WORD_CHAR = "[\\p{L}\\p{N}_]";
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** A term as a case-insensitive regular expression over a line (with its word boundaries). */
export function termPattern(t: Term): RegExp {
  const body = escapeRe(t.text).replace(/ /g, "\\s+");
  if (UNSPACED.test(t.text)) return new RegExp(body, "giu");
  const start = `(?<!${WORD_CHAR})`;
  const end = t.prefix ? "" : `(?!${WORD_CHAR})`;
  return new RegExp(`${start}${body}${end}`, "giu");
}

/**
 * The SQL filter of a query: trigram MATCH for terms of three characters or more (the index finds
 * them), LIKE for shorter ones (the trigram tokenizer cannot index them: those scan the lines).
 */
export function sqlFilter(terms: readonly Term[]): { where: string; params: string[] } {
  const long = terms.filter((t) => [...t.text].length >= 3);
  const short = terms.filter((t) => [...t.text].length < 3);
  const clauses: string[] = [];
  const params: string[] = [];
  if (long.length) {
    clauses.push("lines MATCH ?");
    params.push(long.map((t) => `"${t.text.replace(/"/g, '""')}"`).join(" AND "));
  }
  for (const t of short) {
    clauses.push("text LIKE ? ESCAPE '\\'");
    params.push(`%${t.text.replace(/[\\%_]/g, "\\$&")}%`);
  }
  return { where: clauses.join(" AND "), params };
}
