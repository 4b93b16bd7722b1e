import { createHash } from "node:crypto";
import { join } from "node:path";
import { NbError } from "../core/errors.js";
import type { EmbeddingProvider } from "../models/embeddings/provider.js";
import { eventChunks, memoryChunks } from "./chunks.js";
import {
  appendPlan,
  normalizeSubjectPath,
  parseEvents,
  parseMemories,
  SOURCE_FILE,
  SOURCES,
  type Source,
  type SubjectEvent,
  subjectPathOf,
  tornWarning,
} from "./files.js";
import { embedMissing, hybridIds } from "./hybrid.js";
import { type FileState, type Hit, SubjectIndex, type SyncResult } from "./search-index.js";

/**
 * How the memory domain reaches a project's files: the caller supplies reads and writes that went
 * through its authorisation path (project-relative paths).
 */
export interface SubjectFiles {
  /** A file's text, or null when it does not exist. */
  read(rel: string): Promise<string | null>;
  /** Replace a file atomically (creating its folders). */
  write(rel: string, text: string): Promise<void>;
  /**
   * Add text at the end of a file (creating it and its folders), after cutting it to `keepBytes`
   * when given: only the new bytes are written.
   */
  append(rel: string, text: string, keepBytes?: number): Promise<void>;
  /** Whether a folder exists. */
  isDir(rel: string): Promise<boolean>;
  /** The host path of the project's index file (`.nbook/subject-memory.sqlite`). */
  indexFile: string;
}

/** Where a project keeps its subject memory index. */
export function indexFileOf(projectRoot: string): string {
  return join(projectRoot, ".nbook", "subject-memory.sqlite");
}

/** The default number of hits per source, as in the original (events 6, memory 4). */
export const DEFAULT_LIMIT: Record<Source, number> = { events: 6, memory: 4 };

/** The project-relative file of a subject's source. */
export function sourceFile(subjectPath: string, source: Source): string {
  return `${subjectPath}/${SOURCE_FILE[source]}`;
}

/** An append to events.jsonl as planned: the text before and after, and how to write only the change. */
export interface PlannedAppend {
  path: string;
  file: string;
  before: string | null;
  after: string;
  /** What to write at the end of the file once it is cut to `keepBytes`. */
  add: string;
  keepBytes: number;
  /** Said when a torn last line (an append cut short) is dropped by this append. */
  warning: string | null;
}

/** events.jsonl as it would be after appending `events`, with the text it had before. */
export async function planAppend(
  files: SubjectFiles,
  subjectPath: string,
  events: readonly SubjectEvent[],
): Promise<PlannedAppend> {
  const { path } = normalizeSubjectPath(subjectPath);
  const file = sourceFile(path, "events");
  const before = await files.read(file);
  const p = appendPlan(before, events);
  const kept = (before ?? "").slice(0, p.keep);
  return {
    path,
    file,
    before,
    after: kept + p.add,
    add: p.add,
    keepBytes: Buffer.byteLength(kept, "utf8"),
    warning: p.torn ? tornWarning(file, p.torn.line) : null,
  };
}

/** Write a planned append: only its new lines (after dropping a torn last line). */
export function writeAppend(files: SubjectFiles, p: PlannedAppend): Promise<void> {
  const whole = p.before === null || p.keepBytes === Buffer.byteLength(p.before, "utf8");
  return files.append(p.file, p.add, whole ? undefined : p.keepBytes);
}

/** sha256 of a file's text, as the index records the text it was synced to. */
function textHash(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

function newlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/**
 * The lines appended to an events file since it was indexed: the part after the old text when the
 * old text (same length, same hash) is still its start and ended with a newline; else null.
 */
function appendedTail(state: FileState | null, text: string): { tail: string; hash: string } | null {
  if (!state || text.length <= state.length || text[state.length - 1] !== "\n") return null;
  const h = createHash("sha256").update(text.slice(0, state.length), "utf8");
  if (h.copy().digest("hex") !== state.hash) return null;
  const tail = text.slice(state.length);
  return { tail, hash: h.update(tail, "utf8").digest("hex") };
}

/**
 * Bring the index of one subject's source up to the file's text.
 * Unchanged text (same hash) costs no parsing; events appended at the end of events.jsonl are
 * parsed and indexed alone; any other change re-parses the file and re-indexes only the chunks
 * whose content hash changed. Parse errors name `file:line`.
 */
export function syncText(
  index: SubjectIndex,
  subject: { id: string; path: string },
  source: Source,
  text: string,
  warn: (message: string) => void = () => {},
): SyncResult {
  const file = sourceFile(subject.path, source);
  const state = index.sourceState(subject.id, source);
  const tail = source === "events" ? appendedTail(state, text) : null;
  if (state && tail) {
    // Blank lines in front keep the line numbers of errors in the appended part right.
    const events = parseEvents(file, "\n".repeat(state.lines) + tail.tail, warn).map((l) => l.value);
    const next = {
      hash: tail.hash,
      length: text.length,
      lines: state.lines + newlines(tail.tail),
      entries: state.entries + events.length,
    };
    return index.append(subject.id, source, eventChunks(events, state.entries), next);
  }
  const hash = textHash(text);
  if (state?.hash === hash) return { added: 0, removed: 0 };
  const chunks =
    source === "events"
      ? eventChunks(parseEvents(file, text, warn).map((l) => l.value))
      : memoryChunks(parseMemories(file, text).map((l) => l.value));
  const next = { hash, length: text.length, lines: newlines(text), entries: chunks.length };
  return index.sync(subject.id, source, chunks, next);
}

async function requireSubject(
  files: SubjectFiles,
  subjectPath: string,
): Promise<{ path: string; id: string }> {
  const s = normalizeSubjectPath(subjectPath);
  if (!(await files.isDir(s.path))) throw new NbError("not_found", `No subject at ${s.path}`);
  return s;
}

/** Which retrieval a search ran: hybrid when an embedding model is configured, else keyword. */
export type Retrieval = "keyword" | "hybrid";

/** The hits of one source, with what the search had to index first. */
export interface SourceResult {
  source: Source;
  hits: Hit[];
  sync: SyncResult;
  /** Chunks embedded by this search (only those without a vector). */
  embedded: number;
  /** What reading the source's file noticed (a torn last line dropped). */
  warnings: string[];
}

/**
 * Search one existing subject's sources: keyword, or hybrid (keyword + vector, fused by rank) when
 * `embedding` is given. Each source is synced to its file first, so hand edits are seen, and with
 * embeddings its chunks without a vector are embedded. An embedding failure is thrown, never
 * replaced by keyword results. A subject that does not exist is `not_found` (search never creates one).
 */
export async function searchSubject(
  files: SubjectFiles,
  subjectPath: string,
  sources: readonly Source[],
  query: string,
  opts: { limit?: number; embedding?: EmbeddingProvider | null } = {},
): Promise<{ path: string; retrieval: Retrieval; results: SourceResult[] }> {
  const s = await requireSubject(files, subjectPath);
  const texts = await Promise.all(
    sources.map(async (src) => (await files.read(sourceFile(s.path, src))) ?? ""),
  );
  const provider = opts.embedding ?? null;
  const index = SubjectIndex.shared(files.indexFile);
  const results: SourceResult[] = [];
  let queryVector: Float32Array | undefined;
  for (const [i, source] of sources.entries()) {
    const limit = opts.limit ?? DEFAULT_LIMIT[source];
    const warnings: string[] = [];
    const sync = syncText(index, s, source, texts[i]!, (w) => warnings.push(w));
    if (!provider) {
      results.push({ source, hits: index.search(s.id, source, query, limit), sync, embedded: 0, warnings });
      continue;
    }
    const embedded = await embedMissing(index, s.id, source, provider);
    queryVector ??= (await provider.embed([query], "query"))[0]!;
    const ids = hybridIds(index, s.id, source, query, queryVector, limit);
    results.push({ source, hits: index.rowsByIds(ids), sync, embedded, warnings });
  }
  return { path: s.path, retrieval: provider ? "hybrid" : "keyword", results };
}

/**
 * Rebuild the index from the files of these subjects: every chunk is re-read, while vectors whose
 * text is unchanged are kept (keyed by content hash) and, with `embedding`, only chunks without one
 * are embedded. A broken file is reported for its subject and does not stop the others.
 */
export async function rebuildIndex(
  files: SubjectFiles,
  subjectIds: readonly string[],
  embedding: EmbeddingProvider | null = null,
): Promise<{ subjects: RebuildRow[]; pruned: number }> {
  const index = SubjectIndex.open(files.indexFile);
  try {
    index.clear();
    const subjects: RebuildRow[] = [];
    for (const id of subjectIds) {
      const row: RebuildRow = { id, events: 0, memory: 0, embedded: 0 };
      for (const source of SOURCES) {
        try {
          const s = await requireSubject(files, subjectPathOf(id));
          row[source] = syncText(
            index,
            s,
            source,
            (await files.read(sourceFile(s.path, source))) ?? "",
          ).added;
        } catch (e) {
          if (!(e instanceof NbError)) throw e;
          row.error = e.message;
          continue;
        }
        // An embedding failure stops the rebuild: it is not a problem of this subject's files.
        if (embedding) row.embedded += await embedMissing(index, id, source, embedding);
      }
      subjects.push(row);
    }
    return { subjects, pruned: index.pruneVectors() };
  } finally {
    index.close();
  }
}

/** One subject of a rebuild: chunks indexed per source and embedded, or the error of a broken file. */
export interface RebuildRow {
  id: string;
  events: number;
  memory: number;
  embedded: number;
  error?: string;
}

/** One hit as the tool and the CLI print it: `<rank>. <source> topic=… tick=… time=…` then the text. */
export function formatHits(source: Source, hits: readonly Hit[]): string {
  if (!hits.length) return `No ${source} candidates were recalled.`;
  const blocks = hits.map((h, i) => {
    const tags = [
      h.topic === undefined ? "" : ` topic=${h.topic}`,
      h.tick === undefined ? "" : ` tick=${h.tick}`,
      h.time === undefined ? "" : ` time=${h.time}`,
    ].join("");
    return `${i + 1}. ${source}${tags}\n${h.text}`;
  });
  return `${hits.length} ${source} candidate${hits.length === 1 ? "" : "s"}:\n\n${blocks.join("\n\n")}`;
}
