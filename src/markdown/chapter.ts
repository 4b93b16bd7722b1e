import { countWords } from "../core/text.js";
import { splitFrontMatter } from "./render.js";

/** A leading `#` heading, as the export takes a chapter's title (its closing `#`s left out). */
const TITLE = /^\s*#[ \t]+(.+?)[ \t#]*(?:\r?\n|$)/;

/** A Markdown file read as a chapter: its title and the words of its prose. */
export interface ChapterText {
  /** The leading `#` heading after any front matter (what the export titles the chapter), or null. */
  title: string | null;
  /** Words of the body: front matter is metadata and the title is the chapter's name, neither prose. */
  words: number;
}

export function readChapter(text: string): ChapterText {
  const body = splitFrontMatter(text).body;
  const m = TITLE.exec(body);
  if (!m) return { title: null, words: countWords(body) };
  return { title: m[1]!.trim(), words: countWords(body.slice(m[0].length)) };
}
