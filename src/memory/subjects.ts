import { join } from "node:path";
import { NbError } from "../core/errors.js";
import { eventChunks, memoryChunks } from "./chunks.js";
import {
  appendEventsText,
  normalizeSubjectPath,
  parseEvents,
  parseMemories,
  SOURCE_FILE,
  type Source,
  type SubjectEvent,
} from "./files.js";
import { type Hit, SubjectIndex, type SyncResult } from "./search-index.js";

/**
 * How the memory domain reaches a project's files: the caller supplies reads and writes that went
 * through its authorisation path (project-relative paths).
 */
export interface SubjectFiles {
  /** A file's text, or null when it does not exist. */
  read(rel: string): Promise<string | null>;
  /** Replace a file atomically (creating its folders). */
  write(rel: string, text: string): Promise<void>;
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

/** events.jsonl as it would be after appending `events`, with the text it had before. */
export async function planAppend(
  files: SubjectFiles,
  subjectPath: string,
  events: readonly SubjectEvent[],
): Promise<{ path: string; file: string; before: string | null; after: string }> {
  const { path } = normalizeSubjectPath(subjectPath);
  const file = sourceFile(path, "events");
  const before = await files.read(file);
  return { path, file, before, after: appendEventsText(before, events) };
}

/** The chunks of a source as its file now reads (a missing file is empty); parse errors name file:line. */
async function chunksOf(files: SubjectFiles, path: string, source: Source) {
  const file = sourceFile(path, source);
  const text = (await files.read(file)) ?? "";
  return source === "events"
    ? eventChunks(parseEvents(file, text).map((l) => l.value))
    : memoryChunks(parseMemories(file, text).map((l) => l.value));
}

async function requireSubject(
  files: SubjectFiles,
  subjectPath: string,
): Promise<{ path: string; id: string }> {
  const s = normalizeSubjectPath(subjectPath);
  if (!(await files.isDir(s.path))) throw new NbError("not_found", `No subject at ${s.path}`);
  return s;
}

/** Bring the index of one subject's source up to its file (by content hash). */
export async function syncSource(
  files: SubjectFiles,
  index: SubjectIndex,
  subjectPath: string,
  source: Source,
) {
  const s = await requireSubject(files, subjectPath);
  return index.sync(s.id, source, await chunksOf(files, s.path, source));
}

/**
 * Keyword search of one existing subject's source. The index is synced first, so hand edits are
 * seen; a subject that does not exist is `not_found` (search never creates one).
 */
export async function searchSubject(
  files: SubjectFiles,
  subjectPath: string,
  source: Source,
  query: string,
  limit = DEFAULT_LIMIT[source],
): Promise<{ path: string; hits: Hit[]; sync: SyncResult }> {
  const s = await requireSubject(files, subjectPath);
  const chunks = await chunksOf(files, s.path, source);
  const index = SubjectIndex.open(files.indexFile);
  try {
    const sync = index.sync(s.id, source, chunks);
    return { path: s.path, hits: index.search(s.id, source, query, limit), sync };
  } finally {
    index.close();
  }
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
