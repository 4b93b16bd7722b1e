import { readBook } from "../books/export/manuscript.js";
import { NbError } from "../core/errors.js";
import { countWords } from "../core/text.js";
import type { Project } from "../workspace/project.js";
import type { Goals } from "./goals.js";

/**
 * The book against its goals: each chapter in reading order (the compiled book's order) with its
 * words and target, and the total. Reads every chapter: this is about the whole book.
 */
export function bookProgress(project: Project, goals: Goals) {
  let chapters: { path: string; title: string; markdown: string }[] = [];
  try {
    chapters = readBook(project, null).chapters;
  } catch (e) {
    // A project with no chapter yet has no progress to show, not an error.
    if (!(e instanceof NbError && e.code === "not_found")) throw e;
  }
  const rows = chapters.map((c) => ({
    path: c.path,
    title: c.title,
    words: countWords(c.markdown),
    target: goals.chapters[c.path] ?? null,
  }));
  return { chapters: rows, total: rows.reduce((n, c) => n + c.words, 0) };
}
