// What a compiled book is made of, read from a project: its chapters in the plot's order (folder
// order where the plot names none of them), the front and back matter files, its metadata and cover.
import { type Dirent, readdirSync } from "node:fs";
import { join } from "node:path";
import { NbError } from "../../core/errors.js";
import { splitFrontMatter } from "../../markdown/index.js";
import { plotDb } from "../../plot/db.js";
import type { Project } from "../../workspace/project.js";
import { readFileSafeSync, readTextSafeSync } from "../../workspace/safe-read.js";
import type { ChapterRange } from "./range.js";

/** The largest chapter file read (a whole novel in one file fits). */
const MAX_CHAPTER_BYTES = 32 * 1024 * 1024;
const MAX_COVER_BYTES = 16 * 1024 * 1024;

/** One part of the book: a chapter, or a front/back matter file. */
export interface BookPart {
  /** Project-relative path of its file. */
  path: string;
  title: string;
  /** The Markdown body, without its YAML front matter and its title heading. */
  markdown: string;
}

export interface BookCover {
  bytes: Uint8Array;
  mediaType: "image/jpeg" | "image/png";
  extension: "jpg" | "png";
}

export interface Book {
  title: string;
  author: string | null;
  summary: string;
  language: "en" | "zh";
  front: BookPart[];
  chapters: BookPart[];
  back: BookPart[];
  cover: BookCover | null;
  /** Plot chapters with no file, files the plot does not name: said, not silently dropped. */
  warnings: string[];
}

/** A Markdown file of manuscript/ and the slug it is known by (its name without the number prefix). */
interface Entry {
  path: string;
  slug: string;
}

const FRONT = /^front-?matter(?:-|$)/;
const BACK = /^back-?matter(?:-|$)/;

function slugOf(name: string): string {
  return name
    .replace(/\.md$/i, "")
    .replace(/^\d+[-_. ]*/, "")
    .toLowerCase();
}

/** manuscript/'s chapter files in folder order: `NN-slug/index.md` folders and loose `*.md` files. */
function manuscriptEntries(project: Project): Entry[] {
  let dirents: Dirent[];
  try {
    dirents = readdirSync(join(project.root, "manuscript"), { withFileTypes: true });
  } catch {
    return [];
  }
  const collator = new Intl.Collator("en", { numeric: true });
  dirents.sort((a, b) => collator.compare(a.name, b.name));
  const out: Entry[] = [];
  for (const d of dirents) {
    if (d.name.startsWith(".")) continue;
    if (d.isDirectory()) {
      const path = `manuscript/${d.name}/index.md`;
      if (readPart(project, path) !== null) out.push({ path, slug: slugOf(d.name) });
    } else if (d.isFile() && /\.md$/i.test(d.name) && d.name.toLowerCase() !== "index.md") {
      out.push({ path: `manuscript/${d.name}`, slug: slugOf(d.name) });
    }
  }
  return out;
}

function readPart(project: Project, path: string): string | null {
  return readTextSafeSync(join(project.root, ...path.split("/")), {
    label: path,
    root: project.realRoot,
    maxBytes: MAX_CHAPTER_BYTES,
  });
}

/** The `chapter:` a file's YAML front matter names (how prose points at its plot chapter). */
function declaredChapter(frontMatter: string | null): string | null {
  const m = frontMatter ? /^chapter:\s*["']?([a-z0-9-]+)["']?\s*$/m.exec(frontMatter) : null;
  return m ? m[1]! : null;
}

/** A file's title (its first `#` heading, which is then not repeated in the body) and body. */
function toPart(path: string, text: string, fallbackTitle: string): BookPart {
  // XML 1.0 cannot carry C0 controls other than tab and line breaks; an EPUB must not contain them.
  const clean = splitFrontMatter(text).body.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, "");
  const m = /^\s*#[ \t]+(.+?)[ \t#]*(?:\r?\n|$)/.exec(clean);
  if (!m) return { path, title: fallbackTitle, markdown: clean };
  return { path, title: m[1]!.trim(), markdown: clean.slice(m[0].length) };
}

function humanise(slug: string): string {
  const words = slug.replace(/-/g, " ").trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : slug;
}

interface PlotChapter {
  name: string;
  title: string;
}

function plotChapters(project: Project): PlotChapter[] {
  return plotDb(project)
    .prepare("SELECT name, title FROM story_chapter WHERE status <> 'archived' ORDER BY sort_order, id")
    .all() as PlotChapter[];
}

/**
 * The chapters in reading order: the plot's order for files that belong to a plot chapter (by their
 * front matter's `chapter:`, else by their folder's slug), then — in folder order, with a warning —
 * files the plot does not name. Folder order alone when the plot has no chapters.
 */
function orderChapters(project: Project, entries: Entry[], warnings: string[]): BookPart[] {
  const files = entries.map((e) => {
    const text = readPart(project, e.path) ?? "";
    const key = declaredChapter(splitFrontMatter(text).frontMatter) ?? e.slug;
    return { ...e, text, key };
  });
  const plot = plotChapters(project);
  if (plot.length === 0) return files.map((f) => toPart(f.path, f.text, humanise(f.slug)));
  const byKey = new Map<string, (typeof files)[number]>();
  for (const f of files) if (!byKey.has(f.key)) byKey.set(f.key, f);
  const used = new Set<string>();
  const out: BookPart[] = [];
  for (const c of plot) {
    const f = byKey.get(c.name);
    if (!f) {
      warnings.push(`Plot chapter "${c.name}" (${c.title}) has no file in manuscript/; it is left out`);
      continue;
    }
    used.add(f.path);
    out.push(toPart(f.path, f.text, c.title));
  }
  for (const f of files) {
    if (used.has(f.path)) continue;
    warnings.push(`${f.path} is not a chapter of the plot; it is placed after the plot's chapters`);
    out.push(toPart(f.path, f.text, humanise(f.slug)));
  }
  return out;
}

function readCover(project: Project, declared: unknown): BookCover | null {
  const candidates =
    typeof declared === "string" && declared.trim()
      ? [declared.trim()]
      : [
          "cover.jpg",
          "cover.jpeg",
          "cover.png",
          "manuscript/cover.jpg",
          "manuscript/cover.jpeg",
          "manuscript/cover.png",
        ];
  for (const rel of candidates) {
    if (rel.startsWith("/") || rel.split("/").includes("..")) {
      throw new NbError(
        "invalid_input",
        `project.yaml cover must be a path inside the project, not "${rel}"`,
        {
          fields: [{ pointer: "/cover", message: "must be a project-relative path" }],
        },
      );
    }
    const bytes = readFileSafeSync(join(project.root, ...rel.split("/")), {
      label: rel,
      root: project.realRoot,
      maxBytes: MAX_COVER_BYTES,
    });
    if (!bytes) continue;
    // The picture's own signature decides its type, not its name.
    if (bytes[0] === 0xff && bytes[1] === 0xd8) return { bytes, mediaType: "image/jpeg", extension: "jpg" };
    if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
      return { bytes, mediaType: "image/png", extension: "png" };
    throw new NbError("invalid_input", `${rel} is not a JPEG or PNG picture, so it cannot be the cover`);
  }
  return null;
}

/** Read a project as a book, keeping the chapters `range` selects (all by default). */
export function readBook(project: Project, range: ChapterRange | null): Book {
  const meta = project.meta();
  const warnings: string[] = [];
  const entries = manuscriptEntries(project);
  const matter = (re: RegExp) =>
    entries.filter((e) => re.test(e.slug)).map((e) => toPart(e.path, readPart(project, e.path) ?? "", ""));
  const front = matter(FRONT);
  const back = matter(BACK);
  const all = orderChapters(
    project,
    entries.filter((e) => !FRONT.test(e.slug) && !BACK.test(e.slug)),
    warnings,
  );
  if (all.length === 0) {
    throw new NbError(
      "not_found",
      `${project.name} has no chapters to export: write one as manuscript/01-<name>/index.md (or import a manuscript)`,
    );
  }
  const chapters = range ? range.select(all) : all;
  const author = typeof meta.author === "string" && meta.author.trim() ? meta.author.trim() : null;
  return {
    title: meta.title,
    author,
    summary: meta.summary,
    language: meta.language,
    front,
    chapters,
    back,
    cover: readCover(project, meta.cover),
    warnings,
  };
}
