import { readFileSync, statSync } from "node:fs";
import { resolveFileAddress } from "../workspace/paths.js";
import type { Project } from "../workspace/project.js";

/** The project file holding the author's standing instructions for every agent. */
export const INSTRUCTIONS_FILE = "AGENTS.md";

/** The most of AGENTS.md a prompt carries; the rest stays readable with the read tool. */
export const MAX_INSTRUCTIONS_CHARS = 12_000;

// One read per file version: the prompt is rebuilt before every model call.
const cache = new WeakMap<Project, { stamp: string; section: string | null }>();

/**
 * The system-prompt section carrying the project's AGENTS.md (null when the project has none or it
 * is empty). It is read through the file authorisation path, so a link out of the project is not
 * followed; past `MAX_INSTRUCTIONS_CHARS` it is cut at a line end and says so.
 */
export function projectInstructions(project: Project): string | null {
  let abs: string;
  let stamp: string;
  try {
    abs = resolveFileAddress(project.workspace, project, INSTRUCTIONS_FILE).abs;
    const st = statSync(abs);
    if (!st.isFile()) return null;
    stamp = `${st.ino}:${st.mtimeMs}:${st.size}`;
  } catch {
    // No AGENTS.md (or one that leaves the project): the agents get no project instructions.
    return null;
  }
  const cached = cache.get(project);
  if (cached?.stamp === stamp) return cached.section;
  const section = formatSection(readFileSync(abs, "utf8"));
  cache.set(project, { stamp, section });
  return section;
}

function formatSection(raw: string): string | null {
  const text = raw.replace(/\r\n/g, "\n").trim();
  if (!text) return null;
  const head = `## Project instructions (${INSTRUCTIONS_FILE}, from the author: follow them)`;
  if (text.length <= MAX_INSTRUCTIONS_CHARS) return `${head}\n${text}`;
  const slice = text.slice(0, MAX_INSTRUCTIONS_CHARS);
  const lineEnd = slice.lastIndexOf("\n");
  // Cut at a line end unless that would drop most of the allowance (one enormous line).
  const kept = lineEnd > MAX_INSTRUCTIONS_CHARS / 2 ? slice.slice(0, lineEnd) : slice;
  const note = `[${INSTRUCTIONS_FILE} is cut here: ${kept.length.toLocaleString("en-US")} of ${text.length.toLocaleString("en-US")} characters shown. Read the rest with the read tool (path ${INSTRUCTIONS_FILE}) when the task needs it.]`;
  return `${head}\n${kept}\n${note}`;
}
