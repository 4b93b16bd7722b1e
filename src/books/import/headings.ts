/**
 * Chapter and part headings as novels write them, recognised on one line of text: English
 * (`Chapter 1`, `CHAPTER ONE`, `Chapter Twenty-One: Title`, `Prologue`, `Epilogue`, `Part II`),
 * Chinese (`第一章`, `第1章`, `第一百二十回`, `序章`, `楔子`, `尾声`, `番外`, `第一卷` for a part) and
 * Japanese (`第一話`).
 */

/** What a heading line starts: a chapter, or a part (an act of the plot). */
export type HeadingKind = "chapter" | "part";

/** The longest line taken for a heading: a longer one is prose that happens to start like one. */
const MAX_HEADING_CHARS = 80;

const UNITS = [
  "zero",
  "one",
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
  "ten",
  "eleven",
  "twelve",
  "thirteen",
  "fourteen",
  "fifteen",
  "sixteen",
  "seventeen",
  "eighteen",
  "nineteen",
  "twenty",
  "thirty",
  "forty",
  "fifty",
  "sixty",
  "seventy",
  "eighty",
  "ninety",
  "hundred",
  "thousand",
  "and",
];
const NUMBER_WORDS = new Set(UNITS);

/** True for `twenty-one`, `one hundred and five`, `XIV`, `12`. */
function isNumeral(words: string[]): boolean {
  if (words.length === 1 && /^(\d+|[ivxlcdm]+)$/i.test(words[0])) return true;
  const parts = words.flatMap((w) => w.toLowerCase().split("-"));
  return parts.length > 0 && parts[0] !== "and" && parts.every((p) => NUMBER_WORDS.has(p));
}

const NUMERAL_WORD = String.raw`(?:\d+|[ivxlcdm]+|[a-z]+(?:-[a-z]+)?)`;
/** `Chapter <numeral words> [separator title]`, numerals checked by isNumeral. */
const ENGLISH = new RegExp(
  String.raw`^(chapter|part|book)\s+(${NUMERAL_WORD}(?:\s+${NUMERAL_WORD}){0,3}?)\s*(?:$|[:.\-–—]\s*(.*)$|\s+(.*)$)`,
  "i",
);
const ENGLISH_SINGLE = /^(prologue|epilogue|interlude|afterword)\b\s*(?:$|[:.\-–—]\s*.*$|\s+.*$)/i;

const CJK_NUMERAL = "[一二三四五六七八九十百千万零〇两壹贰叁肆伍陆柒捌玖拾佰\\d０-９]+";
const CJK_CHAPTER = new RegExp(`^第${CJK_NUMERAL}[章回节節话話集幕](?:$|[\\s　:：.、·—-])`);
const CJK_PART = new RegExp(`^第${CJK_NUMERAL}[卷部篇](?:$|[\\s　:：.、·—-])`);
const CJK_SINGLE =
  /^(序章|序幕|序言|序|楔子|引子|尾声|尾聲|终章|終章|后记|後記|番外(?:篇)?)(?:$|[\s　:：.、·—-]|[一二三四五六七八九十\d])/;

/** A line as a heading: without Markdown heading marks, emphasis around it and surrounding spaces. */
export function headingText(line: string): string {
  return line
    .replace(/^\s{0,3}#{1,6}\s+/, "")
    .replace(/\s+#+\s*$/, "")
    .replace(/^(\*\*|__|\*|_)(.*)\1$/, "$2")
    .trim();
}

/** The kind of heading a line is by its words alone, or null when it is not one. */
export function headingKind(line: string): HeadingKind | null {
  const text = headingText(line).replace(/^[\u3000\s]+/, "");
  if (!text || text.length > MAX_HEADING_CHARS) return null;
  if (CJK_PART.test(text)) return "part";
  if (CJK_CHAPTER.test(text) || CJK_SINGLE.test(text)) return "chapter";
  if (ENGLISH_SINGLE.test(text)) return "chapter";
  const m = ENGLISH.exec(text);
  if (!m) return null;
  const numeral = m[2].split(/\s+/);
  if (!isNumeral(numeral)) return null;
  // "Chapter one of the book began…": a sentence, not a heading.
  const rest = m[3] ?? m[4] ?? "";
  if (m[4] !== undefined && /[.,;!?]$/.test(rest)) return null;
  return m[1].toLowerCase() === "chapter" ? "chapter" : "part";
}
