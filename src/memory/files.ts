import { createHash } from "node:crypto";
import { z } from "zod";
import { NbError } from "../core/errors.js";

/** The two sources of a subject's memory, each one JSONL file in the subject's folder. */
export const SOURCES = ["events", "memory"] as const;
export type Source = (typeof SOURCES)[number];

/** The file of a source inside `simulation/subjects/<id>/`. */
export const SOURCE_FILE: Record<Source, string> = { events: "events.jsonl", memory: "memory.jsonl" };

const trimmed = z
  .string()
  .transform((s) => s.trim())
  .pipe(z.string().min(1, "must not be empty"));

/** One line of events.jsonl: what the subject experienced. Key order is the serialisation order. */
export const EventSchema = z
  .object({ text: trimmed, tick: z.string().optional(), time: z.string().optional() })
  .strict();
export type SubjectEvent = z.infer<typeof EventSchema>;

/** One line of memory.jsonl: the subject's current view on one topic. */
export const MemorySchema = z
  .object({ topic: trimmed, view: trimmed, aliases: z.array(trimmed).optional() })
  .strict();
export type SubjectMemory = z.infer<typeof MemorySchema>;

const SUBJECTS_DIR = "simulation/subjects";

/**
 * The canonical `simulation/subjects/<id>` of a subject path: backslashes become `/`, the value is
 * trimmed, and it must be exactly three segments with a real id.
 */
export function normalizeSubjectPath(input: string): { path: string; id: string } {
  const text = input.trim().replace(/\\/g, "/").replace(/\/+$/, "");
  if (text.startsWith("/") || /^[A-Za-z]:/.test(text)) {
    throw new NbError("invalid_input", `subjectPath must be relative: ${SUBJECTS_DIR}/<id>`);
  }
  const segments = text.split("/");
  const id = segments[2] ?? "";
  if (
    segments.length !== 3 ||
    `${segments[0]}/${segments[1]}` !== SUBJECTS_DIR ||
    id === "" ||
    id === "." ||
    id === ".."
  ) {
    throw new NbError("invalid_input", `subjectPath must be ${SUBJECTS_DIR}/<id>, got "${input}"`);
  }
  return { path: `${SUBJECTS_DIR}/${id}`, id };
}

/** The subject path of an id (validated the same way). */
export function subjectPathOf(id: string): string {
  return normalizeSubjectPath(`${SUBJECTS_DIR}/${id}`).path;
}

/** One parsed line with its 1-based line number in the file. */
export interface Line<T> {
  line: number;
  value: T;
}

function parseLines<T>(file: string, text: string, schema: z.ZodType<T>): Line<T>[] {
  const out: Line<T>[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]?.trim() ?? "";
    if (raw === "") continue;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (e) {
      throw new NbError("invalid_input", `${file}:${i + 1}: invalid JSON (${(e as Error).message})`);
    }
    const r = schema.safeParse(json);
    if (!r.success) {
      const issue = r.error.issues[0];
      const where = issue?.path.length ? `.${issue.path.join(".")}` : "";
      throw new NbError("invalid_input", `${file}:${i + 1}${where}: ${issue?.message ?? "invalid"}`);
    }
    out.push({ line: i + 1, value: r.data });
  }
  return out;
}

/**
 * An append cut short by a crash: a last line with no newline after it that is not JSON (a whole
 * line always ends with one). Null when there is none; else the characters kept before it.
 */
export function tornTail(text: string): { keep: number; line: number } | null {
  if (text === "" || text.endsWith("\n")) return null;
  const keep = text.lastIndexOf("\n") + 1;
  const last = text.slice(keep);
  if (last.trim() === "") return null;
  try {
    JSON.parse(last);
    return null;
  } catch {
    return { keep, line: text.slice(0, keep).split("\n").length };
  }
}

/**
 * What an append to events.jsonl depends on: the file's size in bytes and the sha256 of its end from
 * the start of its last whole line (null: no file). An append keeps everything before that end,
 * drops a torn last line and adds its own lines, so these pin exactly what it would do, at a cost
 * that grows with the last line, not with the file.
 */
export function appendAnchor(text: string | null): { bytes: number; tail: string } | null {
  if (text === null) return null;
  const end = text.endsWith("\n") ? text.length - 1 : text.length;
  const start = text.lastIndexOf("\n", end - 1) + 1;
  return {
    bytes: Buffer.byteLength(text, "utf8"),
    tail: createHash("sha256").update(text.slice(start), "utf8").digest("hex"),
  };
}

/** What the reader says of a torn last line it dropped. */
export function tornWarning(file: string, line: number): string {
  return `${file}:${line}: an unfinished last line (an append cut short) was dropped`;
}

/**
 * Parse events.jsonl (blank lines skipped); errors name `file:line`. A torn last line (tornTail)
 * is dropped, never half-parsed, and `warn` told.
 */
export function parseEvents(
  file: string,
  text: string,
  warn: (message: string) => void = () => {},
): Line<SubjectEvent>[] {
  const torn = tornTail(text);
  if (torn) warn(tornWarning(file, torn.line));
  return parseLines(file, torn ? text.slice(0, torn.keep) : text, EventSchema);
}

/** Parse memory.jsonl; errors name `file:line`, a repeated topic is a "duplicate topic" error. */
export function parseMemories(file: string, text: string): Line<SubjectMemory>[] {
  const lines = parseLines(file, text, MemorySchema);
  const seen = new Map<string, number>();
  for (const l of lines) {
    const first = seen.get(l.value.topic);
    if (first !== undefined) {
      throw new NbError(
        "invalid_input",
        `${file}:${l.line}: duplicate topic "${l.value.topic}" (first on line ${first})`,
      );
    }
    seen.set(l.value.topic, l.line);
  }
  return lines;
}

/** One event as its JSONL line (keys text, tick, time; no newline). */
export function serializeEvent(e: SubjectEvent): string {
  return JSON.stringify({ text: e.text, tick: e.tick, time: e.time });
}

/** memory.jsonl for a set of memories: one line each (topic, view, aliases), trailing newline; empty set → "". */
export function serializeMemories(ms: readonly SubjectMemory[]): string {
  return ms.map((m) => `${JSON.stringify({ topic: m.topic, view: m.view, aliases: m.aliases })}\n`).join("");
}

/**
 * How appending extends events.jsonl: the old text's first `keep` characters stay (all of it, or
 * all but a torn last line), then `add` (a newline first if the kept text lacks one, then one line
 * per event, each ending with a newline). Existing lines are kept byte for byte (not re-validated).
 */
export function appendPlan(
  before: string | null,
  events: readonly SubjectEvent[],
): { keep: number; add: string; torn: { line: number } | null } {
  const text = before ?? "";
  const torn = tornTail(text);
  const keep = torn ? torn.keep : text.length;
  const gap = keep === 0 || text[keep - 1] === "\n" ? "" : "\n";
  return { keep, add: `${gap}${events.map((e) => `${serializeEvent(e)}\n`).join("")}`, torn };
}

/** events.jsonl after appending (appendPlan). */
export function appendEventsText(before: string | null, events: readonly SubjectEvent[]): string {
  const p = appendPlan(before, events);
  return (before ?? "").slice(0, p.keep) + p.add;
}
