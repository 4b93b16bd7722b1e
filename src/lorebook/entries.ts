import { type Dirent, readdirSync, type Stats, statSync } from "node:fs";
import { join } from "node:path";
import { toErrorInfo } from "../core/errors.js";
import type { Project } from "../workspace/project.js";
import { readTextSafeSync } from "../workspace/safe-read.js";
import { parseLoreFile } from "./front-matter.js";
import { type PreparedKey, prepareKey } from "./match.js";

/** A lorebook entry that takes part in activation (it has keys or is `always`). */
export interface LoreEntry {
  /** Project-relative path, e.g. `lorebook/people/mara.md`. */
  path: string;
  title: string;
  keys: PreparedKey[];
  always: boolean;
  priority: number;
  subject: string | null;
  body: string;
}

/** A lorebook file whose front matter could not be read; the other entries still work. */
export interface LoreProblem {
  path: string;
  line: number;
  message: string;
}

export interface Lorebook {
  entries: LoreEntry[];
  problems: LoreProblem[];
}

/** Files read for canon at most (the walk stops there), and the largest one. */
const MAX_FILES = 5000;
const MAX_FILE_BYTES = 256 * 1024;

type Parsed = { entry: LoreEntry | null; problem: LoreProblem | null };

/** A file's identity and version: compared field by field (no stamp string is built per file and turn). */
interface Stamp {
  ino: number;
  mtimeMs: number;
  size: number;
}

// One parse per file version: the lorebook is read before every model call of a prose profile. While
// no file changed, the same Lorebook object is returned, so what is built from it (the key index) is kept.
const cache = new WeakMap<
  Project,
  { files: Map<string, { stamp: Stamp; parsed: Parsed }>; book: Lorebook }
>();

/** A lorebook file found by the walk: its project-relative and absolute paths. */
interface Found {
  path: string;
  abs: string;
}

function markdownFiles(dir: string, rel: string, out: Found[]): void {
  let items: Dirent[];
  try {
    items = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  items.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const d of items) {
    if (out.length >= MAX_FILES) return;
    if (d.name.startsWith(".")) continue;
    const path = `${rel}/${d.name}`;
    // Symbolic links are not followed: the safe read refuses a file outside the project anyway.
    if (d.isDirectory()) markdownFiles(join(dir, d.name), path, out);
    else if (d.isFile() && d.name.toLowerCase().endsWith(".md")) out.push({ path, abs: join(dir, d.name) });
  }
}

function titleOf(path: string, body: string, given: string | undefined): string {
  if (given) return given;
  const heading = /^#\s+(.+)$/m.exec(body);
  if (heading) return heading[1].trim();
  const name = path.split("/").at(-1) as string;
  return name === "index.md" ? (path.split("/").at(-2) as string) : name.replace(/\.md$/i, "");
}

function parseFile(project: Project, path: string): Parsed {
  let text: string | null;
  try {
    text = readTextSafeSync(join(project.root, path), {
      label: path,
      root: project.realRoot,
      maxBytes: MAX_FILE_BYTES,
    });
  } catch (e) {
    return { entry: null, problem: { path, line: 1, message: toErrorInfo(e, [project.root]).message } };
  }
  if (text === null) return { entry: null, problem: null };
  const parsed = parseLoreFile(text);
  if (parsed.kind === "plain") return { entry: null, problem: null };
  if (parsed.kind === "broken") {
    return { entry: null, problem: { path, line: parsed.line, message: parsed.message } };
  }
  const { meta, body } = parsed;
  const words = [...new Set([...meta.keys, ...meta.aliases])];
  if (words.length === 0 && !meta.always) return { entry: null, problem: null };
  return {
    entry: {
      path,
      title: titleOf(path, body, meta.title),
      keys: words.map(prepareKey),
      always: meta.always,
      priority: meta.priority,
      subject: meta.subject ?? null,
      body,
    },
    problem: null,
  };
}

/** The project's lorebook entries (`lorebook/**.md` with canon front matter) and broken files, in path order. */
export function readLorebook(project: Project): Lorebook {
  const files: Found[] = [];
  markdownFiles(join(project.root, "lorebook"), "lorebook", files);
  const known = cache.get(project);
  const next = new Map<string, { stamp: Stamp; parsed: Parsed }>();
  let changed = !known || known.files.size !== files.length;
  for (const { path, abs } of files) {
    let st: Stats;
    try {
      st = statSync(abs);
    } catch {
      changed = true;
      continue;
    }
    const stamp = { ino: st.ino, mtimeMs: st.mtimeMs, size: st.size };
    const hit = known?.files.get(path);
    if (
      hit &&
      hit.stamp.ino === stamp.ino &&
      hit.stamp.mtimeMs === stamp.mtimeMs &&
      hit.stamp.size === stamp.size
    )
      next.set(path, hit);
    else {
      changed = true;
      next.set(path, { stamp, parsed: parseFile(project, path) });
    }
  }
  if (known && !changed) return known.book;
  const book: Lorebook = { entries: [], problems: [] };
  for (const { parsed } of next.values()) {
    if (parsed.entry) book.entries.push(parsed.entry);
    if (parsed.problem) book.problems.push(parsed.problem);
  }
  cache.set(project, { files: next, book });
  return book;
}
