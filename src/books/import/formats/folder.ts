import { readdirSync, readFileSync } from "node:fs";
import { basename, extname, join } from "node:path";
import { toLf } from "../../../core/text.js";
import { decodeManuscript } from "../decode.js";
import { headingKind, headingText } from "../headings.js";
import type { Unit } from "../split.js";
import type { ReadBook } from "./source.js";
import { mixedWarning, splitFrontMatter } from "./text.js";

const MARKDOWN_EXT = new Set([".md", ".markdown"]);

/** A Longform index note's scene list (nested lists are indentation), flattened in order. */
function longformScenes(data: Record<string, unknown>): string[] | null {
  const lf = data.longform as { scenes?: unknown } | undefined;
  if (!lf || !Array.isArray(lf.scenes)) return null;
  const flat = (v: unknown): string[] =>
    Array.isArray(v) ? v.flatMap(flat) : typeof v === "string" ? [v] : [];
  return flat(lf.scenes);
}

/** A file's title from its name: `03 - The Bell.md` → `The Bell`. */
function titleFromName(file: string): string {
  const stem = basename(file, extname(file))
    .replace(/^\d+[\s._-]*/, "")
    .replace(/[_-]+/g, " ")
    .trim();
  return stem || basename(file, extname(file));
}

/** The file's first heading as its title (taken out of the text), else a title from its name. */
function unitOf(file: string, body: string): Unit {
  const lines = body.split("\n");
  const first = lines.findIndex((l) => l.trim());
  if (first >= 0 && /^#{1,6}\s/.test(lines[first])) {
    const title = headingText(lines[first]);
    const rest = lines
      .slice(first + 1)
      .join("\n")
      .trim();
    return { kind: headingKind(title) === "part" && !rest ? "part" : "chapter", title, body: rest };
  }
  return { kind: "chapter", title: titleFromName(file), body: body.trim() };
}

/**
 * Read a folder of Markdown files (Obsidian, Longform) as one book, a chapter a file: in the order
 * of a Longform index note's `scenes` when there is one, else by file name (numbers in names compare
 * as numbers, so `2-x.md` comes before `10-x.md`). A file holding only a `Part …` heading is a part.
 */
export function readFolder(dir: string, label: string): ReadBook {
  const files = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && MARKDOWN_EXT.has(extname(e.name).toLowerCase()) && !e.name.startsWith("."))
    .map((e) => e.name)
    .sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  const read = files.map((name) => {
    const decoded = decodeManuscript(readFileSync(join(dir, name)));
    return { name, decoded, ...splitFrontMatter(toLf(decoded.text)) };
  });
  const index = read.find((f) => longformScenes(f.data));
  let ordered = read;
  let meta = {};
  if (index) {
    const scenes = longformScenes(index.data) ?? [];
    const byStem = new Map(read.map((f) => [basename(f.name, extname(f.name)), f]));
    ordered = scenes.flatMap((s) => byStem.get(s) ?? []);
    const lf = index.data.longform as { title?: unknown };
    meta = { ...index.meta, ...(typeof lf.title === "string" ? { title: lf.title } : {}) };
  }
  const warnings = read.flatMap((f) =>
    f.decoded.mixed ? [mixedWarning(`${label}/${f.name}`, f.decoded.mixed)] : [],
  );
  const charsets = new Set(read.map((f) => f.decoded.charset));
  if (charsets.size > 1) {
    warnings.push({
      code: "mixed_encodings",
      message: `The files of ${label} are in different encodings (${[...charsets].join(", ")}); each was read in its own.`,
    });
  }
  return {
    format: "folder",
    meta,
    units: { front: "", units: ordered.filter((f) => f !== index).map((f) => unitOf(f.name, f.body)) },
    footnotes: new Map(),
    charset: charsets.size === 1 ? [...charsets][0] : "mixed",
    warnings,
  };
}
