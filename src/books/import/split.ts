import { type HeadingKind, headingKind, headingText } from "./headings.js";
import { sceneBreak } from "./scene-breaks.js";

/** One piece of the book in reading order: a chapter, or a part heading (an act). */
export interface Unit {
  kind: HeadingKind;
  title: string;
  body: string;
}

/** The book cut into the text before its first chapter and its parts and chapters. */
export interface SplitBook {
  front: string;
  units: Unit[];
  /** How the chapters were found: headings, heading patterns, the user's pattern, or none (one chapter). */
  by: "headings" | "patterns" | "split" | "none" | "contents" | "files";
}

const ATX = /^\s{0,3}(#{1,6})\s+\S/;
const FENCE = /^\s{0,3}(```|~~~)/;

interface Line {
  text: string;
  /** ATX level, 0 when the line is no heading. */
  level: number;
}

/** The book's lines with their heading levels, fenced code left alone; scene breaks normalised. */
function readLines(markdown: string): Line[] {
  let fenced = false;
  return markdown.split("\n").map((text) => {
    if (FENCE.test(text)) fenced = !fenced;
    if (fenced) return { text, level: 0 };
    const brk = sceneBreak(text);
    if (brk !== null) return { text: brk, level: 0 };
    const m = ATX.exec(text);
    return { text, level: m ? m[1].length : 0 };
  });
}

/** Blank lines trimmed from both ends, runs of blank lines cut to one. */
function tidy(lines: string[]): string {
  return lines
    .join("\n")
    .replace(/[ \t]+$/gm, "")
    .replace(/\n{3,}/g, "\n\n")
    .replace(/^\n+|\n+$/g, "");
}

/** The ATX level chapters are at: the shallowest level of a non-part heading, under a lone book title. */
function chapterLevel(lines: Line[]): number | null {
  const levels = lines.filter((l) => l.level && headingKind(l.text) !== "part").map((l) => l.level);
  if (!levels.length) return null;
  const top = Math.min(...levels);
  const deeper = levels.filter((l) => l > top);
  const firstHeading = lines.find((l) => l.level);
  // One top heading, first of all, over deeper ones: the book's title, not a chapter.
  if (levels.filter((l) => l === top).length === 1 && deeper.length && firstHeading?.level === top) {
    return Math.min(...deeper);
  }
  return top;
}

/** Which lines start a unit, and of what kind. */
function startsOf(
  lines: Line[],
  pattern: RegExp | null,
): { starts: Map<number, HeadingKind>; by: SplitBook["by"] } {
  const starts = new Map<number, HeadingKind>();
  if (pattern) {
    lines.forEach((l, i) => {
      if (pattern.test(l.text)) starts.set(i, headingKind(l.text) === "part" ? "part" : "chapter");
    });
    return { starts, by: "split" };
  }
  const level = chapterLevel(lines);
  if (level !== null) {
    lines.forEach((l, i) => {
      if (!l.level || l.level > level) return;
      const kind = headingKind(l.text);
      if (kind === "part") starts.set(i, "part");
      else if (l.level === level) starts.set(i, "chapter");
    });
    if ([...starts.values()].includes("chapter")) return { starts, by: "headings" };
    starts.clear();
  }
  // A line on its own (blank or nothing around it) that reads as a heading.
  lines.forEach((l, i) => {
    const alone = !lines[i - 1]?.text.trim() || !lines[i + 1]?.text.trim() || l.level > 0;
    const kind = alone ? headingKind(l.text) : null;
    if (kind) starts.set(i, kind);
  });
  return { starts, by: starts.size ? "patterns" : "none" };
}

/**
 * Cut a book in Markdown into its front matter and its parts and chapters: by `pattern` when given
 * (each matching line starts a chapter), else by its headings (the chapter level, with `Part …`
 * headings above it as parts), else by lines that read as chapter headings.
 */
export function splitBook(markdown: string, pattern: RegExp | null = null): SplitBook {
  const lines = readLines(markdown);
  const { starts, by } = startsOf(lines, pattern);
  const front: string[] = [];
  const units: Unit[] = [];
  let current: { unit: Unit; lines: string[] } | null = null;
  const close = () => {
    if (current) units.push({ ...current.unit, body: tidy(current.lines) });
  };
  lines.forEach((l, i) => {
    const kind = starts.get(i);
    if (kind) {
      close();
      current = { unit: { kind, title: headingText(l.text), body: "" }, lines: [] };
    } else if (current) current.lines.push(l.text);
    else front.push(l.text);
  });
  close();
  return { front: tidy(front), units, by };
}
