import type { Issue, Patch, WriteRecord } from "../../world/api.js";
import type { WorldScriptOutcome } from "../../world/script/run.js";

const CLIP = 200;

function clip(s: string): string {
  return s.length > CLIP ? `${s.slice(0, CLIP)}…` : s;
}

/** One issue as a line for the model: label, where, what. */
export function issueLine(i: Issue): string {
  const where = `${i.subjectId}${i.attr}${i.sliceId ? ` (slice ${i.sliceId})` : ""}`;
  return `- ${i.label} ${i.severity} at ${where}: ${i.title} — ${i.message}`;
}

function patchLine(p: Patch): string {
  const value = p.value === undefined ? "" : ` ${clip(JSON.stringify(p.value))}`;
  return `    ${p.subjectId} ${p.op} ${p.path || "/"}${value}${p.summary ? `  # ${clip(p.summary)}` : ""}`;
}

/**
 * The text a script's result becomes: a string result verbatim, anything else as pretty JSON,
 * then the captured console and the issues the script's writes caused, when there are any.
 */
export function resultText(o: WorldScriptOutcome): string {
  const parts: string[] = [];
  if (typeof o.value === "string") parts.push(o.value);
  else if (o.value === undefined) parts.push("Done (the script returned nothing).");
  else parts.push(JSON.stringify(o.value, null, 2));
  if (o.console.length) parts.push(`console:\n${o.console.join("\n")}`);
  if (o.issues.length) {
    parts.push(`issues caused by this script (${o.issues.length}):\n${o.issues.map(issueLine).join("\n")}`);
  }
  return parts.join("\n\n");
}

/**
 * The approval preview of a dry run: every slice the script would write, edit or delete, with its
 * patches, then the script itself. Approving commits exactly these writes or nothing.
 */
export function previewText(code: string, o: WorldScriptOutcome, time: (t: number) => string): string {
  const lines = o.writes.length
    ? [`Dry run (rolled back): the script would make ${changes(o.writes.length)}:`, ...writesText(o, time)]
    : ["Dry run (rolled back): the script changed nothing."];
  return `${lines.join("\n")}\n\nscript:\n${code}`;
}

/** The lines of each write (slice, then its patches) and of the issues the writes caused. */
export function writesText(
  o: Pick<WorldScriptOutcome, "writes" | "issues">,
  time: (t: number) => string,
): string[] {
  const lines: string[] = [];
  for (const w of o.writes) lines.push(...writeLines(w, time));
  if (o.issues.length) lines.push(`issues it would cause (${o.issues.length}):`, ...o.issues.map(issueLine));
  return lines;
}

/** "1 change", "3 changes". */
export function changes(n: number): string {
  return `${n} change${n === 1 ? "" : "s"}`;
}

function writeLines(w: WriteRecord, time: (t: number) => string): string[] {
  const verb = { write: "write", edit: "edit", delete: "delete" }[w.action];
  const n = w.patches.length;
  const head = `- ${verb} slice ${w.sliceId} at ${time(w.instant)}${w.title ? ` "${clip(w.title)}"` : ""} (${n} patch${n === 1 ? "" : "es"})`;
  return [head, ...w.patches.map(patchLine)];
}
