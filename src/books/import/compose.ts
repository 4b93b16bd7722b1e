import { basename, extname } from "node:path";
import { NbError } from "../../core/errors.js";
import { countWords } from "../../core/text.js";
import type { ReadBook } from "./formats/source.js";
import { headingText } from "./headings.js";
import type { ParsedImportOptions } from "./options.js";
import { splitPattern } from "./options.js";
import type { ImportPlan } from "./plan.js";
import { slugOf, uniqueName } from "./slug.js";
import { type SplitBook, splitBook, type Unit } from "./split.js";
import type { ImportWarning } from "./warnings.js";

/** A plot title is at most this long (the plot's limit). */
const MAX_PLOT_TITLE = 120;

/** One chapter as it will be written. */
export interface ChapterFile {
  folder: string;
  name: string;
  title: string;
  act: string | null;
  /** The whole index.md. */
  text: string;
}

/** Everything an import writes, and the plan it shows. */
export interface Composed {
  plan: ImportPlan;
  front: { file: string; text: string } | null;
  chapters: ChapterFile[];
  acts: { name: string; title: string }[];
}

/** What is there already when importing into an existing project. */
export interface Existing {
  folders: string[];
  /** Files directly under manuscript/. */
  files: Set<string>;
  chapterNames: Set<string>;
  actNames: Set<string>;
}

const NONE: Existing = { folders: [], files: new Set(), chapterNames: new Set(), actNames: new Set() };

/** The book as one Markdown text (the source's own cut undone), for a `--split` pattern to cut. */
function asMarkdown(read: ReadBook): string {
  if (read.markdown !== undefined) return read.markdown;
  const u = read.units ?? { front: "", units: [] };
  return [u.front, ...u.units.map((x) => `${x.title}\n\n${x.body}`)].filter((s) => s.trim()).join("\n\n");
}

function cut(read: ReadBook, pattern: RegExp | null): SplitBook & { by: ImportPlan["splitBy"] } {
  if (read.units && !pattern) {
    return { ...read.units, by: read.format === "folder" ? "files" : "contents" };
  }
  return splitBook(asMarkdown(read), pattern);
}

/** Project language from a language tag (`zh-Hant`, `en-GB`), else from the text: mostly Han is Chinese. */
function languageOf(tag: string | undefined, text: string, warnings: ImportWarning[]): "en" | "zh" {
  const t = tag?.toLowerCase();
  if (t?.startsWith("zh")) return "zh";
  if (t?.startsWith("en")) return "en";
  const sample = text.slice(0, 200_000);
  const han = sample.match(/\p{Script=Han}/gu)?.length ?? 0;
  const letters = sample.match(/\p{L}/gu)?.length ?? 0;
  const detected = letters && han / letters > 0.3 ? "zh" : "en";
  if (t) {
    warnings.push({
      code: "language_unsupported",
      message: `The book's language is "${tag}"; projects are English or Chinese, so it is set to ${detected}`,
    });
  }
  return detected;
}

const FOOTNOTE_REF = /\[\^([^\]\s]+)\](?!:)/g;

/** Each footnote's definition after the first text that refers to it; unreferenced ones after the last. */
function placeFootnotes(texts: string[], footnotes: Map<string, string>): string[] {
  const left = new Map(footnotes);
  const out = texts.map((t) => {
    const labels = [...new Set([...t.matchAll(FOOTNOTE_REF)].map((m) => m[1]))].filter((l) => left.has(l));
    const defs = labels.map((l) => {
      const d = `[^${l}]: ${left.get(l)}`;
      left.delete(l);
      return d;
    });
    return defs.length ? `${t}\n\n${defs.join("\n")}` : t;
  });
  if (left.size && out.length) {
    const defs = [...left].map(([l, d]) => `[^${l}]: ${d}`);
    out[out.length - 1] = `${out[out.length - 1]}\n\n${defs.join("\n")}`;
  }
  return out;
}

/** The book's title: the user's, the book's own, the lone heading of its front matter, or the file name. */
function titleOf(read: ReadBook, opts: ParsedImportOptions, front: string, source: string): string {
  const heading = front.split("\n").find((l) => /^#\s/.test(l));
  const stem = basename(source, extname(source)).replace(/[_-]+/g, " ").trim();
  return (
    (opts.title ?? read.meta.title ?? (heading && headingText(heading)) ?? stem).slice(0, 200) ||
    "Imported book"
  );
}

/** The number a chapter folder starts with (`07-x` → 7), or 0. */
const folderNumber = (f: string) => Number(/^(\d+)-/.exec(f)?.[1] ?? 0);

/**
 * Turn a read book into the files and plot rows an import writes, and the plan that shows them:
 * parts become acts; a part's own text, the text of a book with no chapter headings, and the text
 * before the first chapter (the front-matter file) are all kept.
 */
export function compose(
  read: ReadBook,
  opts: ParsedImportOptions,
  target: { source: string; project: string; into: boolean; existing?: Existing },
): Composed {
  const existing = target.existing ?? NONE;
  const warnings = [...read.warnings];
  const split = cut(read, splitPattern(opts.split));
  const acts: { name: string; title: string }[] = [];
  const units: (Unit & { act: string | null })[] = [];
  const actNames = new Set(existing.actNames);
  let act: string | null = null;
  for (const u of split.units) {
    if (u.kind === "part") {
      act = uniqueName(slugOf(u.title) || `part-${acts.length + 1}`, actNames);
      acts.push({ name: act, title: u.title.slice(0, MAX_PLOT_TITLE) });
      if (u.body.trim()) {
        warnings.push({
          code: "part_text_kept",
          message: `The text under "${u.title}" is kept as a chapter of that name`,
        });
        units.push({ ...u, kind: "chapter", act });
      }
    } else units.push({ ...u, act });
  }
  let front = split.front;
  const title = titleOf(read, opts, front, target.source);
  if (!units.length) {
    units.push({ kind: "chapter", title, body: front, act: null });
    front = "";
    warnings.push({
      code: "no_chapter_headings",
      message:
        "No chapter headings were found: the whole text is one chapter. Use --split pattern:REGEX to cut it.",
    });
  }
  const texts = placeFootnotes([front, ...units.map((u) => u.body)], read.footnotes);
  const total = units.length;
  const first = Math.max(0, ...existing.folders.map(folderNumber)) + 1;
  const width = Math.max(2, String(first + total - 1).length);
  const folders = new Set(existing.folders);
  const names = new Set(existing.chapterNames);
  const seenTitles = new Map<string, number>();
  const chapters: ChapterFile[] = units.map((u, i) => {
    const n = first + i;
    const slug = slugOf(u.title) || `chapter-${n}`;
    const shownTitle = u.title || `Chapter ${n}`;
    seenTitles.set(shownTitle, (seenTitles.get(shownTitle) ?? 0) + 1);
    const body = texts[i + 1];
    return {
      folder: uniqueName(`${String(n).padStart(width, "0")}-${slug}`, folders),
      name: uniqueName(slug, names),
      title: shownTitle,
      act: u.act,
      text: body ? `# ${shownTitle}\n\n${body}\n` : `# ${shownTitle}\n`,
    };
  });
  for (const [t, count] of seenTitles) {
    if (count > 1) {
      warnings.push({
        code: "duplicate_chapter_title",
        message: `${count} chapters are titled "${t}"; their folders and plot names are numbered apart`,
      });
    }
  }
  for (const c of chapters) {
    if (c.title.length > MAX_PLOT_TITLE) {
      warnings.push({
        code: "title_truncated",
        message: `The plot title of "${c.title.slice(0, 40)}…" is cut to ${MAX_PLOT_TITLE} characters`,
      });
    }
    if (!c.text.includes("\n\n"))
      warnings.push({ code: "empty_chapter", message: `"${c.title}" has no text` });
  }
  let frontFile: Composed["front"] = null;
  if (texts[0].trim()) {
    const base = "front-matter";
    let file = `${base}.md`;
    for (let n = 2; existing.files.has(file); n++) file = `${base}-${n}.md`;
    if (file !== `${base}.md`) {
      warnings.push({
        code: "front_matter_renamed",
        message: `The project has a front-matter.md already: this book's goes to ${file}`,
      });
    }
    frontFile = { file: `manuscript/${file}`, text: `${texts[0]}\n` };
  }
  const words = chapters.reduce((s, c) => s + countWords(c.text), 0) + countWords(frontFile?.text ?? "");
  if (words === 0) {
    throw new NbError("invalid_input", `${target.source} has no text to import`, {
      details: { reason: "empty" },
    });
  }
  const allText = texts.join("\n");
  const plan: ImportPlan = {
    format: read.format,
    source: target.source,
    encoding: read.charset ?? null,
    project: target.project,
    into: target.into,
    title,
    author: opts.author ?? read.meta.author ?? null,
    language: opts.language ?? languageOf(read.meta.language, allText, warnings),
    splitBy: units.length === 1 && warnings.some((w) => w.code === "no_chapter_headings") ? "none" : split.by,
    frontMatter: frontFile ? { file: frontFile.file, words: countWords(frontFile.text) } : null,
    acts,
    chapters: chapters.map((c, i) => ({
      index: i + 1,
      title: c.title,
      folder: c.folder,
      name: c.name,
      act: c.act,
      words: countWords(c.text),
    })),
    words,
    warnings,
  };
  return { plan, front: frontFile, chapters, acts };
}
