import { type ErrorCode, NbError } from "../../../core/errors.js";
import { detectLineEnding, fromLf, toLf } from "../../../core/text.js";
import { editsToUnifiedDiff, type LineEdit } from "./diff.js";
import type { Chunk, PatchOp } from "./parse.js";

/** A patch path resolved to a host path plus the name to show. */
export interface PatchTarget {
  abs: string;
  display: string;
}

/**
 * How a patch reaches its files. The tool's own goes through the project's checked descriptors;
 * nothing here names a file on disk.
 */
export interface PatchFiles<T extends PatchTarget> {
  /** The file's text, "dir" when a folder has its name, null when nothing does. */
  read(target: T): Promise<string | null | "dir">;
  write(target: T, text: string): Promise<void>;
  remove(target: T): Promise<void>;
}

/** One file's planned change. */
export interface FileChange<T extends PatchTarget = PatchTarget> {
  target: T;
  action: "add" | "update" | "delete";
  before: string | null;
  after: string | null;
  /** The diff, when the planner already knows it (an update of a file ending in a newline). */
  diff?: string;
}

/** A patch failure pointing at `/patch`; the code matches what read and edit answer for the same file. */
function fail(message: string, code: ErrorCode = "invalid_input"): NbError {
  return new NbError(code, message, { fields: [{ pointer: "/patch", message }] });
}

// Tried in order: exact, then ignoring trailing whitespace, then ignoring surrounding whitespace. Two
// lines match under a level when their normal forms are equal.
const NORMALISE: Array<(line: string) => string> = [(l) => l, (l) => l.trimEnd(), (l) => l.trim()];

/**
 * Where the lines a patch looks for occur in the file, per matching level: one pass over the file
 * per level a search reaches (instead of a scan to the end for every hunk), recording only the lines
 * the patch names, so a large file costs no per-line allocation.
 */
class LineIndex {
  private readonly byLevel: Array<Map<string, number[]> | undefined> = [];

  /** `needles`: every line the searches will ask for (anchors and context). */
  constructor(
    readonly lines: readonly string[],
    private readonly needles: readonly string[],
  ) {}

  /** Ascending positions of the lines whose normal form at `level` equals that of `line`. */
  positions(level: number, line: string): readonly number[] {
    const norm = NORMALISE[level];
    let map = this.byLevel[level];
    if (!map) {
      map = new Map();
      for (const n of this.needles) map.set(norm(n), []);
      this.fill(map, norm);
      this.byLevel[level] = map;
    }
    const key = norm(line);
    let at = map.get(key);
    if (!at) {
      // A line outside the needles given up front: indexed on its own.
      const one = new Map([[key, [] as number[]]]);
      this.fill(one, norm);
      at = one.get(key) as number[];
      map.set(key, at);
    }
    return at;
  }

  matchesAt(pattern: readonly string[], at: number, level: number): boolean {
    const { lines } = this;
    if (at < 0 || at + pattern.length > lines.length) return false;
    const norm = NORMALISE[level];
    for (let k = 0; k < pattern.length; k++) if (norm(lines[at + k]) !== norm(pattern[k])) return false;
    return true;
  }

  private fill(map: Map<string, number[]>, norm: (line: string) => string): void {
    const { lines } = this;
    if (norm !== NORMALISE[0]) {
      for (let i = 0; i < lines.length; i++) map.get(norm(lines[i]))?.push(i);
      return;
    }
    // Exact level: a line whose length no needle has is skipped without hashing it.
    let longest = 0;
    for (const k of map.keys()) longest = Math.max(longest, k.length);
    const length = new Uint8Array(longest + 1);
    for (const k of map.keys()) length[k.length] = 1;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      if (line.length <= longest && length[line.length]) map.get(line)?.push(i);
    }
  }
}

/** The first index of the ascending `xs` whose value is at least `min`. */
function lowerBound(xs: readonly number[], min: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid] < min) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Find `pattern` at or after `from`; with `eof`, prefer a match ending at the last line. Returns -1
 * or the index. A second match is an ambiguity error unless `first` (the search follows an anchor,
 * which already says where to look: its first match wins). Only the places where the pattern's
 * rarest line occurs are tried.
 */
function seek(
  index: LineIndex,
  pattern: readonly string[],
  from: number,
  opts: { eof: boolean; first: boolean },
  what: string,
): number {
  const total = index.lines.length;
  if (pattern.length === 0) {
    // An empty pattern matches everywhere: at `from` when that is all there is or the first match wins.
    if (opts.eof) return total;
    if (from > total) return -1;
    if (opts.first || from === total) return from;
    throw fail(
      `${what} is ambiguous: it matches at lines ${from + 1} and ${from + 2}; add more context or an "@@ <line>" anchor`,
    );
  }
  for (let level = 0; level < NORMALISE.length; level++) {
    if (opts.eof && index.matchesAt(pattern, total - pattern.length, level)) return total - pattern.length;
    let key = 0;
    let candidates = index.positions(level, pattern[0]);
    for (let k = 1; k < pattern.length && candidates.length; k++) {
      const p = index.positions(level, pattern[k]);
      if (p.length < candidates.length) {
        key = k;
        candidates = p;
      }
    }
    let found = -1;
    for (let c = lowerBound(candidates, from + key); c < candidates.length; c++) {
      const at = candidates[c] - key;
      if (at + pattern.length > total) break;
      if (!index.matchesAt(pattern, at, level)) continue;
      if (opts.first) return at;
      if (found !== -1) {
        throw fail(
          `${what} is ambiguous: it matches at lines ${found + 1} and ${at + 1}; add more context or an "@@ <line>" anchor`,
        );
      }
      found = at;
    }
    if (found !== -1) return found;
  }
  return -1;
}

/** Apply an Update's chunks to LF text. The result always ends with a newline. */
export function applyChunks(
  text: string,
  chunks: Chunk[],
  display: string,
): { text: string; oldLines: string[]; edits: LineEdit[] } {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const index = new LineIndex(
    lines,
    chunks.flatMap((c) => [...c.anchors, ...c.oldLines]),
  );
  const edits: LineEdit[] = [];
  let cursor = 0;
  chunks.forEach((c, ci) => {
    const what = `Chunk ${ci + 1} of ${display}`;
    // The first anchor must be unique; a nested anchor and the context are taken at their first
    // match after the anchor before them.
    c.anchors.forEach((anchor, k) => {
      const at = seek(
        index,
        [anchor],
        cursor,
        { eof: false, first: k > 0 },
        `Anchor "@@ ${anchor}" in ${display}`,
      );
      if (at === -1) throw fail(`${what}: anchor line "${anchor}" not found`);
      cursor = at + 1;
    });
    const after = { eof: c.eof, first: c.anchors.length > 0 };
    if (c.oldLines.length === 0) {
      edits.push({ at: lines.length, remove: 0, insert: c.newLines });
      return;
    }
    let old = c.oldLines;
    let insert = c.newLines;
    let at = seek(index, old, cursor, after, what);
    if (at === -1 && old[old.length - 1] === "") {
      old = old.slice(0, -1);
      if (insert[insert.length - 1] === "") insert = insert.slice(0, -1);
      at = seek(index, old, cursor, after, what);
    }
    if (at === -1) {
      throw fail(`${what}: context not found (expected lines starting with "${old[0].slice(0, 80)}")`);
    }
    edits.push({ at, remove: old.length, insert });
    cursor = at + old.length;
  });
  return { text: rewrite(text, lines, edits), oldLines: lines, edits };
}

/**
 * The text with `edits` applied, ending with a newline. Edits at distinct, non-overlapping places
 * are spliced between unchanged stretches of the original text, so the untouched lines are not
 * copied one by one; overlapping ones are applied line by line, last first.
 */
function rewrite(text: string, lines: readonly string[], edits: LineEdit[]): string {
  const ordered = [...edits].sort((a, b) => a.at - b.at);
  const disjoint = ordered.every(
    (e, i) => i === 0 || (ordered[i - 1].at + ordered[i - 1].remove <= e.at && ordered[i - 1].at < e.at),
  );
  if (!disjoint) {
    const out = [...lines];
    for (const e of [...edits].sort((a, b) => b.at - a.at)) out.splice(e.at, e.remove, ...e.insert);
    return out.length ? `${out.join("\n")}\n` : "";
  }
  const source = text.endsWith("\n") || lines.length === 0 ? text : `${text}\n`;
  // Character offset of the start of each line of `source` (the last entry is its end).
  const start = new Float64Array(lines.length + 1);
  for (let i = 0; i < lines.length; i++) start[i + 1] = start[i] + lines[i].length + 1;
  let out = "";
  let line = 0;
  for (const e of ordered) {
    out += source.slice(start[line], start[e.at]);
    if (e.insert.length) out += `${e.insert.join("\n")}\n`;
    line = e.at + e.remove;
  }
  return out + source.slice(start[line]);
}

/**
 * Plan a whole patch against an in-memory view of the files: later operations see earlier ones.
 * Nothing is written; any failure throws before the disk is touched.
 */
export async function planPatch<T extends PatchTarget>(
  ops: PatchOp[],
  resolve: (path: string) => T,
  files: PatchFiles<T>,
): Promise<FileChange<T>[]> {
  const targets = new Map<string, T>();
  const resolved = ops.map((op) => {
    const src = resolve(op.path);
    const dst = op.kind === "update" && op.moveTo ? resolve(op.moveTo) : null;
    return { op, src, dst };
  });
  const original = new Map<string, string | null | "dir">();
  const knownDiffs = new Map<string, string>();
  const view = new Map<string, string | null | "dir">();
  const get = async (t: T) => {
    targets.set(t.abs, t);
    if (!view.has(t.abs)) {
      const cur = await files.read(t);
      original.set(t.abs, cur);
      view.set(t.abs, cur);
    }
    return view.get(t.abs) as string | null | "dir";
  };

  for (const { op, src, dst } of resolved) {
    const cur = await get(src);
    if (op.kind === "add") {
      if (cur === "dir") throw fail(`Cannot add ${src.display}: a folder has that name`);
      view.set(src.abs, op.content);
    } else if (op.kind === "delete") {
      if (cur === "dir") throw fail(`Cannot delete ${src.display}: it is a folder`);
      if (cur === null) throw fail(`Cannot delete ${src.display}: the file does not exist`, "not_found");
      view.set(src.abs, null);
    } else {
      if (cur === "dir") throw fail(`Cannot update ${src.display}: it is a folder`);
      if (cur === null) throw fail(`Cannot update ${src.display}: the file does not exist`, "not_found");
      const eol = detectLineEnding(cur);
      let next = cur;
      if (op.chunks.length) {
        const lf = toLf(cur);
        const applied = applyChunks(lf, op.chunks, src.display);
        next = fromLf(applied.text, eol);
        // The fast diff is exact only for a single in-place update of a file that ends in a newline.
        if (lf.endsWith("\n") && !(dst && dst.abs !== src.abs) && original.get(src.abs) === cur) {
          knownDiffs.set(
            src.abs,
            editsToUnifiedDiff(applied.oldLines, applied.edits, `a/${src.display}`, `b/${src.display}`),
          );
        } else knownDiffs.delete(src.abs);
      }
      if (dst && dst.abs !== src.abs) {
        if ((await get(dst)) === "dir") throw fail(`Cannot move to ${dst.display}: a folder has that name`);
        view.set(src.abs, null);
        view.set(dst.abs, next);
      } else view.set(src.abs, next);
    }
  }

  const changes: FileChange<T>[] = [];
  for (const [abs, after] of view) {
    const before = original.get(abs) as string | null;
    if (after === before) continue;
    const action = before === null ? "add" : after === null ? "delete" : "update";
    const change: FileChange<T> = {
      target: targets.get(abs)!,
      action,
      before,
      after: after as string | null,
    };
    const diff = knownDiffs.get(abs);
    if (diff !== undefined && action === "update") change.diff = diff;
    changes.push(change);
  }
  return changes;
}

/** Write planned changes; if any write fails, restore what was already changed. */
export async function commitChanges<T extends PatchTarget>(
  changes: FileChange<T>[],
  files: PatchFiles<T>,
): Promise<void> {
  const done: FileChange<T>[] = [];
  try {
    for (const c of changes) {
      if (c.after === null) await files.remove(c.target);
      else await files.write(c.target, c.after);
      done.push(c);
    }
  } catch (e) {
    for (const c of done.reverse()) {
      if (c.before === null) await files.remove(c.target).catch(() => {});
      else await files.write(c.target, c.before).catch(() => {});
    }
    throw e;
  }
}
