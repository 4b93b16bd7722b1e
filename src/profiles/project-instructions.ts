import { statSync } from "node:fs";
import { join } from "node:path";
import { toErrorInfo } from "../core/errors.js";
import type { Project } from "../workspace/project.js";
import { readTextSafeSync } from "../workspace/safe-read.js";

/** The project file holding the author's standing instructions for every agent. */
export const INSTRUCTIONS_FILE = "AGENTS.md";

/** The most of AGENTS.md a prompt carries; the rest stays readable with the read tool. */
export const MAX_INSTRUCTIONS_CHARS = 12_000;

// One read per file version: the prompt is rebuilt before every model call.
const cache = new WeakMap<Project, { stamp: string; section: string | null }>();

/** The largest AGENTS.md read for the prompt. */
const MAX_INSTRUCTIONS_BYTES = 4 * 1024 * 1024;

const HEAD = `## Project instructions (${INSTRUCTIONS_FILE}, from the author: follow them)`;

/**
 * The system-prompt section carrying the project's AGENTS.md (null when the project has none or it
 * is empty). It is read through the safe read, so a FIFO, a device or a link out of the project is
 * never read (the section then says why); past `MAX_INSTRUCTIONS_CHARS` it is cut at a line end and
 * says so.
 */
export function projectInstructions(project: Project): string | null {
  const abs = join(project.root, INSTRUCTIONS_FILE);
  let stamp: string;
  try {
    const st = statSync(abs);
    stamp = `${st.ino}:${st.mtimeMs}:${st.size}`;
  } catch {
    // No AGENTS.md: the agents get no project instructions.
    return null;
  }
  const cached = cache.get(project);
  if (cached?.stamp === stamp) return cached.section;
  let section: string | null;
  try {
    const text = readTextSafeSync(abs, {
      label: INSTRUCTIONS_FILE,
      root: project.realRoot,
      maxBytes: MAX_INSTRUCTIONS_BYTES,
    });
    section = text === null ? null : formatSection(text);
  } catch (e) {
    section = `${HEAD}\n[${INSTRUCTIONS_FILE} was not read: ${toErrorInfo(e, [project.root, project.realRoot]).message}]`;
  }
  cache.set(project, { stamp, section });
  return section;
}

/** HTML comments in AGENTS.md are the author's notes to themselves (the new-project template's hint is one). */
const COMMENT = /<!--[\s\S]*?(?:-->|$)/g;

/** True when nothing is left but headings: a title alone instructs no one. */
function headingsOnly(text: string): boolean {
  return text.split("\n").every((line) => !line.trim() || /^#{1,6}\s/.test(line));
}

function formatSection(raw: string): string | null {
  const text = raw
    .replace(/\r\n/g, "\n")
    .replace(COMMENT, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  if (!text || headingsOnly(text)) return null;
  if (text.length <= MAX_INSTRUCTIONS_CHARS) return `${HEAD}\n${text}`;
  const slice = text.slice(0, MAX_INSTRUCTIONS_CHARS);
  const lineEnd = slice.lastIndexOf("\n");
  // Cut at a line end unless that would drop most of the allowance (one enormous line).
  const kept = lineEnd > MAX_INSTRUCTIONS_CHARS / 2 ? slice.slice(0, lineEnd) : slice;
  const note = `[${INSTRUCTIONS_FILE} is cut here: ${kept.length.toLocaleString("en-US")} of ${text.length.toLocaleString("en-US")} characters shown. Read the rest with the read tool (path ${INSTRUCTIONS_FILE}) when the task needs it.]`;
  return `${HEAD}\n${kept}\n${note}`;
}
