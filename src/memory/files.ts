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

/** Parse events.jsonl (blank lines skipped); errors name `file:line`. */
export function parseEvents(file: string, text: string): Line<SubjectEvent>[] {
  return parseLines(file, text, EventSchema);
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
 * events.jsonl after appending: existing text with trailing whitespace trimmed, then one line per
 * event, ending with a newline. Existing lines are kept byte for byte (not re-validated).
 */
export function appendEventsText(before: string | null, events: readonly SubjectEvent[]): string {
  const head = (before ?? "").replace(/\s+$/, "");
  const added = events.map(serializeEvent).join("\n");
  return `${head === "" ? "" : `${head}\n`}${added}\n`;
}
