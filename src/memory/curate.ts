import jsonpatch, { type Operation } from "fast-json-patch/commonjs/core.js";
import { NbError } from "../core/errors.js";
import { formatFieldErrors, zodFieldErrors } from "../core/validate.js";
import { type MemoryPatch, MemoryPatchSchema } from "./curate-schema.js";
import {
  MemorySchema,
  normalizeSubjectPath,
  parseMemories,
  SOURCE_FILE,
  type SubjectMemory,
  serializeMemories,
} from "./files.js";
import type { SubjectFiles } from "./subjects.js";

/** A patch applied to a copy of the memories: the valid list it gives, or why it was refused. */
export type PatchOutcome =
  | { ok: true; memories: SubjectMemory[]; changed: boolean }
  | { ok: false; reason: string };

/** Readable names for fast-json-patch's error kinds (its own messages say little about the cause). */
const PATCH_ERRORS: Record<string, string> = {
  OPERATION_PATH_UNRESOLVABLE: "the path does not exist (indices are 0-based; `-` only with add)",
  OPERATION_FROM_UNRESOLVABLE: "`from` does not exist",
  OPERATION_PATH_INVALID: 'the path must be a JSON Pointer starting with "/"',
  OPERATION_PATH_ILLEGAL_ARRAY_INDEX: "an array index must be a number without leading zeros, or `-`",
  OPERATION_VALUE_OUT_OF_BOUNDS: "the index is past the end of the list",
  OPERATION_VALUE_REQUIRED: "`value` is required",
  OPERATION_VALUE_CANNOT_CONTAIN_UNDEFINED: "`value` must be JSON",
  OPERATION_FROM_REQUIRED: "`from` is required",
  TEST_OPERATION_FAILED: "the test did not match (the value at that path is different)",
};

/** Check the shape of every operation; the first problems as `/<n>/field: message` lines. */
function shapeProblems(patch: unknown): string | null {
  const parsed = MemoryPatchSchema.safeParse(patch);
  if (!parsed.success) return formatFieldErrors(zodFieldErrors(parsed.error, ["patch"]));
  const missing = parsed.data.flatMap((o, i) => {
    if ((o.op === "move" || o.op === "copy") && o.from === undefined)
      return [`/patch/${i}/from: required for ${o.op}`];
    if ((o.op === "add" || o.op === "replace" || o.op === "test") && o.value === undefined)
      return [`/patch/${i}/value: required for ${o.op}`];
    return [];
  });
  return missing.length ? missing.join("\n") : null;
}

/** Where the op points, for error messages: `op 2 (replace /1/view)`. */
function opLabel(patch: MemoryPatch, index: number): string {
  const o = patch[index];
  return o
    ? `operation ${index} (${o.op} ${o.path}${o.from === undefined ? "" : ` from ${o.from}`})`
    : "the patch";
}

/** Apply the operations one by one to a deep copy, so an error names the operation that caused it. */
function applyToCopy(current: readonly SubjectMemory[], patch: MemoryPatch): { doc: unknown } | string {
  // Cloned both ways: the result must not share objects with the current list or with the patch.
  let doc: unknown = jsonpatch.deepClone(current);
  const ops = jsonpatch.deepClone(patch) as Operation[];
  for (let i = 0; i < ops.length; i++) {
    try {
      doc = jsonpatch.applyOperation(doc, ops[i] as Operation, true, true, true, i).newDocument;
    } catch (e) {
      const name = e instanceof jsonpatch.JsonPatchError ? e.name : "";
      const why = PATCH_ERRORS[name] ?? (e as Error).message.split("\n")[0];
      return `${opLabel(patch, i)}: ${why}`;
    }
  }
  return { doc };
}

/** The whole list re-validated as memory.jsonl would hold it: each line's contract, topics unique. */
function validateList(doc: unknown): SubjectMemory[] | string {
  if (!Array.isArray(doc)) return "after the patch the memories are no longer a list (array)";
  const out: SubjectMemory[] = [];
  const seen = new Map<string, number>();
  for (let i = 0; i < doc.length; i++) {
    const r = MemorySchema.safeParse(doc[i]);
    if (!r.success) {
      const fields = zodFieldErrors(r.error, [i]);
      return `the resulting memory at /${i} is invalid:\n${formatFieldErrors(fields)}`;
    }
    const first = seen.get(r.data.topic);
    if (first !== undefined) return `duplicate topic "${r.data.topic}" at /${i} (also at /${first})`;
    seen.set(r.data.topic, i);
    out.push(r.data);
  }
  return out;
}

/**
 * Apply a curator's patch to a copy of the current memories and re-validate the whole result.
 * Never throws for a bad patch: the outcome says why, so the curator can be asked again.
 */
export function applyMemoryPatch(current: readonly SubjectMemory[], patch: unknown): PatchOutcome {
  const shape = shapeProblems(patch);
  if (shape) return { ok: false, reason: `the patch is malformed:\n${shape}` };
  const applied = applyToCopy(current, patch as MemoryPatch);
  if (typeof applied === "string") return { ok: false, reason: applied };
  const memories = validateList(applied.doc);
  if (typeof memories === "string") return { ok: false, reason: memories };
  return { ok: true, memories, changed: serializeMemories(memories) !== serializeMemories(current) };
}

/** Which topics a change adds, removes and rewrites (a renamed topic is removed and added). */
export interface MemoryChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

/** The topic-level difference between two memory lists. */
export function memoryChanges(
  before: readonly SubjectMemory[],
  after: readonly SubjectMemory[],
): MemoryChanges {
  const old = new Map(before.map((m) => [m.topic, serializeMemories([m])]));
  const now = new Map(after.map((m) => [m.topic, serializeMemories([m])]));
  return {
    added: after.filter((m) => !old.has(m.topic)).map((m) => m.topic),
    removed: before.filter((m) => !now.has(m.topic)).map((m) => m.topic),
    changed: after
      .filter((m) => old.has(m.topic) && old.get(m.topic) !== now.get(m.topic))
      .map((m) => m.topic),
  };
}

/** One line of text for a change: `added "Lin"; changed "the baker"; removed "the girl"`. */
export function describeChanges(c: MemoryChanges): string {
  const part = (verb: string, topics: string[]) =>
    topics.length ? [`${verb} ${topics.map((t) => JSON.stringify(t)).join(", ")}`] : [];
  const parts = [...part("added", c.added), ...part("changed", c.changed), ...part("removed", c.removed)];
  return parts.length ? parts.join("; ") : "no topic changed";
}

/** A subject's memory.jsonl as it is now: its text (the concurrency token) and its parsed list. */
export interface MemoryFile {
  /** The canonical subject path. */
  path: string;
  /** The project-relative memory.jsonl. */
  file: string;
  /** The file's text, or null when the subject has no memory.jsonl yet. */
  text: string | null;
  memories: SubjectMemory[];
}

/**
 * Read and validate an existing subject's memory.jsonl (a missing file is an empty list). A missing
 * subject is `not_found`: only appending events creates one. A broken file fails with `file:line`.
 */
export async function readMemoryFile(files: SubjectFiles, subjectPath: string): Promise<MemoryFile> {
  const { path } = normalizeSubjectPath(subjectPath);
  if (!(await files.isDir(path))) throw new NbError("not_found", `No subject at ${path}`);
  const file = `${path}/${SOURCE_FILE.memory}`;
  const text = await files.read(file);
  return { path, file, text, memories: parseMemories(file, text ?? "").map((l) => l.value) };
}
